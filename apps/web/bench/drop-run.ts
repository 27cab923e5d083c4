/**
 * bench:web's run with forced drops: a server reached through `@fileshare/testing/drop-proxy`, and
 * one file uploaded through the page twice, first with the connection cut every quarter of the
 * upload (three drops, each resumed by the page), then through the same proxy without drops, so
 * that only the drops tell the two apart.
 */
import { freePort } from '@fileshare/testing'
import { dropsEvery, startDropProxy } from '@fileshare/testing/drop-proxy'

import { startE2eServer } from '../e2e/server.js'
import { findByRole, waitForField, type RawBrowser } from './cdp.js'
import { click, pickFile, readLink } from './page-upload.js'

export const DROPS = 3

export interface DropRun {
  droppedMs: number
  steadyMs: number
  drops: number
}

export async function measureDropRun(
  browser: RawBrowser,
  source: string,
  size: number,
  timeoutMs: number,
): Promise<DropRun> {
  const port = await freePort()
  const proxy = await startDropProxy({
    targetPort: port,
    dropAt: dropsEvery(Math.floor(size / (DROPS + 1)), DROPS),
  })
  // Links and the WebSocket's Origin check use BASE_URL: the proxy's address, which pages use.
  const server = await startE2eServer({ port, env: { BASE_URL: proxy.url } })
  try {
    const upload = async () => {
      const { cdp } = browser
      const page = await browser.openPage(`${proxy.url}/`)
      await pickFile(cdp, page, source, timeoutMs)
      const button = await findByRole(cdp, page, 'button', 'Upload', timeoutMs)
      const start = performance.now()
      await click(cdp, page, button)
      await waitForField(cdp, page, 'Share link', timeoutMs)
      const ms = performance.now() - start
      await readLink(cdp, page, timeoutMs)
      return ms
    }
    const droppedMs = await upload()
    const drops = proxy.drops
    if (drops !== DROPS) throw new Error(`expected ${DROPS} drops, saw ${drops}`)
    const steadyMs = await upload()
    return { droppedMs, steadyMs, drops }
  } finally {
    await server.close()
    await proxy.close()
  }
}
