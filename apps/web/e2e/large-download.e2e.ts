/**
 * A 1 GiB download through the page: the share is prepared by the client core in Node (fast),
 * then the page decrypts it in its worker and streams it to disk through the service worker.
 * Property checked: the browser's memory stays flat while 1 GiB passes through it, and the saved
 * file equals the plaintext byte for byte.
 *
 * "Flat" is measured on the resident memory of the web's renderers, sampled every 200 ms, each
 * sample right after a full garbage collection in the page, its workers and the service worker
 * (memory.ts): what the app still holds, not the decrypted records V8 has yet to collect, which
 * pile up for as long as each isolate's collector waits and so depend on the machine's load.
 * Both bounds leave room for the records on their way through the pipeline and the workers'
 * own heaps, and are far below what holding the file would take: no rising trend (the last
 * third of the samples peaks at most 64 MB above the first third, so keeping an eighth of the
 * bytes passed fails it), and a peak growth under 256 MB, a quarter of the file.
 */
import { describe, expect, it } from 'vitest'

import { DOWNLOAD_BUTTON } from './actions.js'
import { browserAvailable, downloadedFile } from './browser.js'
import { sha256File, sha256PseudoRandom } from './files.js'
import { collectGarbage, EXPOSE_GC_ARG, sampleMemory } from './memory.js'
import { shareFromNode } from './node-client.js'
import { useSuite } from './suite.js'

const MB = 1024 * 1024
const SIZE = Number(process.env.E2E_LARGE_MIB ?? 1024) * MB
const GROWTH_LIMIT = 256 * MB
const TREND_LIMIT = 64 * MB

describe.runIf(browserAvailable)('a 1 GiB download in the browser', () => {
  const suite = useSuite({ browserArgs: [EXPOSE_GC_ARG] })

  it(
    'saves 1 GiB to disk with flat browser memory and identical bytes',
    { timeout: 300_000 },
    async () => {
      const seed = 'large download'
      const expected = sha256PseudoRandom(SIZE, seed)
      const sent = await shareFromNode(suite.url, {
        size: SIZE,
        seed,
        name: 'big.bin',
        maxDownloads: 1,
      })

      const page = await suite.open(sent.link)
      await page.getByRole('listitem').filter({ hasText: 'big.bin' }).waitFor()
      const download = page.getByRole('button', { name: DOWNLOAD_BUTTON })
      await download.waitFor()

      const memory = await sampleMemory(suite.browser.browser, {
        collect: () => collectGarbage(page),
      })
      const [saved] = await Promise.all([page.waitForEvent('download'), download.click()])
      const path = await downloadedFile(saved)
      const report = await memory.stop()
      await page.getByRole('status').filter({ hasText: 'Download complete.' }).waitFor()

      console.log(
        `${SIZE / MB} MiB download: renderer growth ${Math.round(report.rendererGrowth / MB)} MB,`,
        `trend ${Math.round(report.rendererTrend / MB)} MB, all processes`,
        `${Math.round(report.totalGrowth / MB)} MB over ${report.samples} samples`,
      )
      // Which process grew, for a failure to be read from the log.
      console.log(report.processes.map((p) => `${p.type} ${p.firstMB}→${p.peakMB} MB`).join(', '))
      expect(report.samples).toBeGreaterThan(5)
      expect(report.rendererTrend).toBeLessThan(TREND_LIMIT)
      expect(report.rendererGrowth).toBeLessThan(GROWTH_LIMIT)
      expect(saved.suggestedFilename()).toBe('big.bin')
      expect(await sha256File(path)).toBe(expected)
    },
  )
})
