/**
 * How a download through the page ends when it does not end well: the plaintext goes from the
 * transfer worker straight to the service worker, so the page learns of the end from the worker.
 * Shares are prepared by the client core in Node; the stored ciphertext is then damaged on disk.
 */
import { open, readdir, stat, truncate } from 'node:fs/promises'
import { join } from 'node:path'

import type { Download, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'

import { DOWNLOAD_BUTTON } from './actions.js'
import { browserAvailable } from './browser.js'
import { shareFromNode } from './node-client.js'
import { useSuite } from './suite.js'

const MiB = 1024 * 1024

describe.runIf(browserAvailable)('downloads that fail or are cancelled', () => {
  const suite = useSuite()

  /** Uploads `size` bytes from Node; answers the link and the stored blob's path. */
  async function share(size: number, name: string) {
    const blobs = join(suite.server.dataDir, 'blobs')
    const before = new Set(await readdir(blobs).catch(() => [] as string[]))
    const sent = await shareFromNode(suite.url, { size, seed: name, name })
    const added = (await readdir(blobs)).filter((f) => !f.startsWith('.') && !before.has(f))
    expect(added).toHaveLength(1)
    return { link: sent.link, blob: join(blobs, added[0]!) }
  }

  /**
   * Opens the link and starts the download; answers the browser's downloads as they come, and
   * the first of them once it has begun.
   */
  async function startDownload(link: string, name: string) {
    const page = await suite.open(link)
    await page.getByRole('listitem').filter({ hasText: name }).waitFor()
    const downloads: Download[] = []
    page.on('download', (download) => downloads.push(download))
    const began = page.waitForEvent('download')
    await page.getByRole('button', { name: DOWNLOAD_BUTTON }).click()
    return { page, downloads, began }
  }

  /** The browser began a download, and none of its downloads ended as a complete file. */
  async function expectNoCompleteFile(began: Promise<Download>, downloads: Download[]) {
    await began
    expect(downloads.length).toBeGreaterThan(0)
    for (const download of downloads) expect(await download.failure()).not.toBeNull()
  }

  /** The page shows `alert` and never says the download completed. */
  async function expectFailure(page: Page, alert: string) {
    await page.getByRole('alert').filter({ hasText: alert }).waitFor()
    await expect(
      page.getByRole('status').filter({ hasText: 'Download complete.' }).count(),
    ).resolves.toBe(0)
  }

  it('stops a download whose ciphertext was changed with the integrity message', async () => {
    // Property: one flipped byte in the middle of the stored ciphertext fails the save.
    const { link, blob } = await share(6 * MiB + 123, 'flipped.bin')
    const file = await open(blob, 'r+')
    const at = 3 * MiB
    const byte = Buffer.alloc(1)
    await file.read(byte, 0, 1, at)
    byte[0] = byte[0]! ^ 0x01
    await file.write(byte, 0, 1, at)
    await file.close()

    const { page, downloads, began } = await startDownload(link, 'flipped.bin')
    await expectFailure(page, 'The data did not pass the integrity check')
    await expectNoCompleteFile(began, downloads)
  })

  it('fails a download whose stored ciphertext was cut short, saving nothing', async () => {
    // Property: a blob shorter than its upload never ends as a complete file. The server still
    // announces the full length, so the browser sees the connection end early.
    const { link, blob } = await share(3 * MiB + 500, 'cut.bin')
    const { size } = await stat(blob)
    await truncate(blob, size - (500 + 16))

    const { page, downloads, began } = await startDownload(link, 'cut.bin')
    await expectFailure(page, 'The download failed')
    await expectNoCompleteFile(began, downloads)
  })

  it('cancels a running download from the page', async () => {
    const { link } = await share(512 * MiB, 'long.bin')
    const { page, downloads, began } = await startDownload(link, 'long.bin')
    // Cancelled once the browser's download is under way, so the cancel has a download to stop.
    const download = await began
    await page.getByRole('button', { name: 'Cancel', exact: true }).click()
    await page.getByRole('status').filter({ hasText: 'Download cancelled.' }).waitFor()
    expect(await download.failure()).not.toBeNull()
    await expectNoCompleteFile(began, downloads)
    // The page is ready for another try, and the worker took the cancel: the button is back.
    await page.getByRole('button', { name: DOWNLOAD_BUTTON }).waitFor()
  })
})
