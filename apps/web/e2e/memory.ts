/**
 * Samples the resident memory of every Chromium process while a test runs: the process ids come
 * from CDP (SystemInfo.getProcessInfo), the sizes from /proc/<pid>/status (VmRSS). A process's
 * growth is its peak minus its first sample, so a renderer started during the measurement (a
 * service worker's, for example) is measured from its own start.
 */
import { readFile } from 'node:fs/promises'

import type { Browser } from 'playwright-core'

const MB = 1024 * 1024

interface ProcessSample {
  type: string
  first: number
  peak: number
  last: number
}

export interface MemoryReport {
  /** Sum over renderer processes (pages, workers, service workers) of peak minus first sample. */
  rendererGrowth: number
  /** The same over every Chromium process, the browser process included. */
  totalGrowth: number
  /** Highest sum of the renderers' RSS seen in one sample. */
  rendererPeak: number
  /**
   * Highest renderer sum in the last third of the samples minus the highest in the first third:
   * memory that grows with the bytes passed shows here, the garbage collector's sawtooth does not.
   */
  rendererTrend: number
  samples: number
  /** Sum of the renderers' RSS at each sample, in order. */
  rendererSeries: number[]
  processes: Array<{ pid: number; type: string; firstMB: number; peakMB: number }>
}

export interface MemorySampler {
  stop(): Promise<MemoryReport>
}

async function rssOf(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8')
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1]
    return kb === undefined ? null : Number(kb) * 1024
  } catch {
    return null // the process ended between listing and reading
  }
}

export async function sampleMemory(browser: Browser, intervalMs = 200): Promise<MemorySampler> {
  const cdp = await browser.newBrowserCDPSession()
  const processes = new Map<number, ProcessSample>()
  let rendererPeak = 0
  let samples = 0
  const rendererSeries: number[] = []

  const sample = async () => {
    const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as {
      processInfo: Array<{ id: number; type: string }>
    }
    let renderers = 0
    for (const { id, type } of processInfo) {
      const rss = await rssOf(id)
      if (rss === null) continue
      const seen = processes.get(id)
      if (seen === undefined) processes.set(id, { type, first: rss, peak: rss, last: rss })
      else {
        seen.peak = Math.max(seen.peak, rss)
        seen.last = rss
      }
      if (type === 'renderer') renderers += rss
    }
    rendererPeak = Math.max(rendererPeak, renderers)
    rendererSeries.push(renderers)
    samples++
  }

  await sample()
  let running = true
  const loop = (async () => {
    while (running) {
      await new Promise((resolve) => setTimeout(resolve, intervalMs))
      if (running) await sample()
    }
  })()

  return {
    async stop() {
      running = false
      await loop
      await sample()
      await cdp.detach()
      const all = [...processes.entries()]
      const growth = (list: typeof all) =>
        list.reduce((sum, [, p]) => sum + Math.max(0, p.peak - p.first), 0)
      const third = Math.max(1, Math.floor(rendererSeries.length / 3))
      const rendererTrend =
        Math.max(...rendererSeries.slice(-third)) - Math.max(...rendererSeries.slice(0, third))
      return {
        rendererGrowth: growth(all.filter(([, p]) => p.type === 'renderer')),
        totalGrowth: growth(all),
        rendererPeak,
        rendererTrend,
        samples,
        rendererSeries,
        processes: all.map(([pid, p]) => ({
          pid,
          type: p.type,
          firstMB: Math.round(p.first / MB),
          peakMB: Math.round(p.peak / MB),
        })),
      }
    },
  }
}
