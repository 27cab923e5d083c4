/**
 * Samples the resident memory of every Chromium process while a test runs: the process ids come
 * from CDP (SystemInfo.getProcessInfo), the sizes from /proc/<pid>/status (VmRSS). A process's
 * growth is its peak minus its first sample, so a renderer started during the measurement (a
 * service worker's, for example) is measured from its own start.
 *
 * What a page holds, not what V8 has yet to collect: with `collect` (collectGarbage below) every
 * sample is taken right after a full collection in the page, each of its workers and its service
 * workers. Each isolate collects when its own heuristics say so, and an isolate that allocates
 * little itself but is handed transferred buffers (the service worker given every decrypted
 * record) lets them wait long after they are read, longer the busier the machine; sampled
 * without it, the resident size tells more about that timing than about the app. Whatever is
 * still reachable survives the collection, so memory the app keeps still shows.
 */
import { readFile } from 'node:fs/promises'

import type { Browser, Page, Worker } from 'playwright-core'

const MB = 1024 * 1024

interface ProcessSample {
  type: string
  first: number
  peak: number
  last: number
}

export interface MemoryReport {
  /**
   * Sum over the web's renderer processes (pages, workers, service workers) of peak minus first
   * sample; the browser's interface renderers count in `totalGrowth` only.
   */
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

export interface SampleOptions {
  /** Run before each sample and awaited (collectGarbage for a page). */
  collect?: () => Promise<void>
  intervalMs?: number
}

/** The Chromium flag that lets collectGarbage run: V8's `gc()` in every isolate. */
export const EXPOSE_GC_ARG = '--js-flags=--expose-gc'

/** What playwright says of an isolate that ended between being listed and being reached. */
const GONE = /closed|destroyed|detached/i

/**
 * A full garbage collection in the page, every worker it started (nested ones too) and its
 * context's service workers; they run in the page's renderer, or in one of their own. Needs a
 * browser started with EXPOSE_GC_ARG, and fails without it, so a test cannot quietly measure
 * garbage instead. An isolate that ends meanwhile has nothing left to collect.
 */
export async function collectGarbage(page: Page): Promise<void> {
  const isolates: Array<Pick<Worker, 'evaluate'>> = [
    page,
    ...page.workers(),
    ...page.context().serviceWorkers(),
  ]
  await Promise.all(
    isolates.map(async (isolate) => {
      let collected: boolean
      try {
        collected = await isolate.evaluate(() => {
          const gc = (globalThis as { gc?: () => void }).gc
          gc?.()
          return gc !== undefined
        })
      } catch (error) {
        if (error instanceof Error && GONE.test(error.message)) return
        throw error
      }
      if (!collected) throw new Error(`gc() is not exposed: start Chromium with ${EXPOSE_GC_ARG}`)
    }),
  )
}

/**
 * The type a process counts under: a renderer of the browser's own interface (its WebUI, such
 * as the download bubble, started with --top-chrome-webui) is told apart from the web's, since
 * no page, worker or service worker of a site can run in it.
 */
async function typeOf(pid: number, type: string): Promise<string> {
  if (type !== 'renderer') return type
  try {
    // Chromium rewrites its children's command line as one line, the flags apart by spaces.
    const args = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split(/[\0 ]/)
    return args.includes('--top-chrome-webui') ? BROWSER_UI : type
  } catch {
    return type // the process ended; its size will not be read either
  }
}

const BROWSER_UI = 'renderer (browser interface)'

async function rssOf(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8')
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1]
    return kb === undefined ? null : Number(kb) * 1024
  } catch {
    return null // the process ended between listing and reading
  }
}

export async function sampleMemory(
  browser: Browser,
  { collect, intervalMs = 200 }: SampleOptions = {},
): Promise<MemorySampler> {
  const cdp = await browser.newBrowserCDPSession()
  const processes = new Map<number, ProcessSample>()
  let rendererPeak = 0
  let samples = 0
  const rendererSeries: number[] = []

  const sample = async () => {
    await collect?.()
    const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as {
      processInfo: Array<{ id: number; type: string }>
    }
    let renderers = 0
    for (const { id, type: reported } of processInfo) {
      const rss = await rssOf(id)
      if (rss === null) continue
      const seen = processes.get(id)
      const type = seen?.type ?? (await typeOf(id, reported))
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
