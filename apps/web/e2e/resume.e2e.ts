/**
 * Resumed uploads in the browser, through a proxy that cuts every connection at given byte
 * counts: an upload whose connection drops resumes by itself and says so, over the WebSocket or,
 * where WebSockets are refused, over chunks from the server's `nextIndex`; a page closed mid-upload
 * offers to resume after a reload and continues with the same file, refusing a different one,
 * says so when the server no longer has the upload, and a cancel while the upload waits to resume
 * ends it on the server.
 */
import type { DropProxy } from '@fileshare/testing/drop-proxy'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { pickFiles } from './actions.js'
import { browserAvailable } from './browser.js'
import {
  CHUNKED_DROPS,
  expectResentFromNextIndex,
  useDroppingSuite,
  waitForResume,
} from './dropping-suite.js'
import { sha256File, tempDir, writePseudoRandomFile, type TempDir } from './files.js'

const MB = 1_000_000
const STORAGE_KEY = 'fileshare.unfinishedUpload'

function storedState(page: Page): Promise<string | null> {
  return page.evaluate((key) => localStorage.getItem(key), STORAGE_KEY)
}

interface KeptUpload {
  upload: { session: { id: string }; ownerToken: string }
}

/** Uploads `source` from `page` until the proxy's first drop; answers what the page kept. */
async function uploadUntilDropped(page: Page, proxy: DropProxy, source: string) {
  await pickFiles(page, source)
  await page.getByRole('button', { name: 'Upload', exact: true }).click()
  await expect.poll(() => proxy.drops, { timeout: 60_000 }).toBe(1)
  return JSON.parse((await storedState(page))!) as KeptUpload
}

let dir: TempDir
beforeAll(async () => {
  dir = await tempDir()
})
afterAll(async () => {
  await dir?.remove()
})

describe.runIf(browserAvailable)('an upload whose connection drops', () => {
  // Client-to-server bytes: the page's requests are small beside the upload's.
  const run = useDroppingSuite({ dropAt: [8 * MB, 14 * MB] })

  it('resumes by itself, says where, and completes byte for byte', async () => {
    const source = dir.join('dropped.bin')
    // Large enough that the upload goes on for a while after its last resume.
    await writePseudoRandomFile(source, 64 * MB + 5)
    const page = await run.open()
    await pickFiles(page, source)
    await page.getByRole('button', { name: 'Upload', exact: true }).click()
    await waitForResume(page)
    const link = page.getByRole('textbox', { name: 'Share link' })
    await link.waitFor({ timeout: 120_000 })
    expect(run.proxy.drops).toBe(2)
    // Done: nothing of the upload is kept in the browser any longer.
    expect(await storedState(page)).toBeNull()
    expect(await run.downloadedHash(await link.inputValue())).toBe(await sha256File(source))
  })
})

describe.runIf(browserAvailable)('an upload that falls back to chunks', () => {
  const run = useDroppingSuite(CHUNKED_DROPS)

  it('resumes from the status’s nextIndex after a drop and completes byte for byte', async () => {
    const source = dir.join('chunked.bin')
    const size = 30 * MB + 1
    await writePseudoRandomFile(source, size)
    const { page, statuses } = await run.openRecording()
    await pickFiles(page, source)
    await page.getByRole('button', { name: 'Upload', exact: true }).click()
    await waitForResume(page)
    const link = page.getByRole('textbox', { name: 'Share link' })
    await link.waitFor({ timeout: 120_000 })
    expect(run.proxy.drops).toBe(1)
    expect(run.recorder.upgrades).toEqual(['/api/upload/ws'])
    expectResentFromNextIndex(statuses, run.recorder.requests, size)
    expect(await storedState(page)).toBeNull()
    expect(await run.downloadedHash(await link.inputValue())).toBe(await sha256File(source))
  })
})

describe.runIf(browserAvailable)('an upload whose page closed', () => {
  const run = useDroppingSuite({ dropAt: [6 * MB] })

  it('continues after a reload with the same file and refuses another', async () => {
    const source = dir.join('reloaded.bin')
    const other = dir.join('other.bin')
    await writePseudoRandomFile(source, 20 * MB + 3)
    await writePseudoRandomFile(other, 20 * MB + 3)
    const first = await run.open()
    await pickFiles(first, source)
    await first.getByRole('button', { name: 'Upload', exact: true }).click()
    // The state is kept once the server names the upload; the page closes while it is cut off.
    await expect.poll(() => storedState(first), { timeout: 30_000 }).not.toBeNull()
    await expect.poll(() => run.proxy.drops, { timeout: 60_000 }).toBe(1)
    const context = first.context()
    await first.close({ runBeforeUnload: false })
    await run.linkBack()

    const page = await context.newPage()
    await page.goto(run.url)
    await page.getByText('An upload of reloaded.bin did not finish.', { exact: false }).waitFor()
    await pickFiles(page, other)
    await page.getByRole('button', { name: 'Resume upload' }).click()
    await page
      .getByText('These are not the files of the unfinished upload', { exact: false })
      .waitFor()
    expect(await storedState(page)).not.toBeNull()

    await page.getByRole('button', { name: 'Remove other.bin' }).click()
    await pickFiles(page, source)
    await page.getByRole('button', { name: 'Resume upload' }).click()
    const link = page.getByRole('textbox', { name: 'Share link' })
    await link.waitFor({ timeout: 120_000 })
    expect(await storedState(page)).toBeNull()
    expect(await run.downloadedHash(await link.inputValue())).toBe(await sha256File(source))
  })
})

describe.runIf(browserAvailable)('an upload the server no longer has', () => {
  const run = useDroppingSuite({ dropAt: [6 * MB] })

  it('says so when the same file is picked, and forgets the upload', async () => {
    const source = dir.join('ended.bin')
    await writePseudoRandomFile(source, 20 * MB + 1)
    const first = await run.open()
    const kept = await uploadUntilDropped(first, run.proxy, source)
    const context = first.context()
    await first.close({ runBeforeUnload: false })
    // Ended on the server behind the page's back, as the cleanup of an idle session would.
    const ended = await fetch(`${run.suite.server.url}/api/upload/${kept.upload.session.id}`, {
      method: 'DELETE',
      headers: { 'X-Owner-Token': kept.upload.ownerToken },
    })
    expect(ended.status).toBe(200)
    await run.linkBack()

    const page = await context.newPage()
    await page.goto(run.url)
    await pickFiles(page, source)
    await page.getByRole('button', { name: 'Resume upload' }).click()
    await page.getByText('The server no longer has the unfinished upload').waitFor()
    expect(await storedState(page)).toBeNull()
    await expect(page.getByRole('button', { name: 'Resume upload' }).count()).resolves.toBe(0)
  })
})

describe.runIf(browserAvailable)('an upload cancelled while it waits to resume', () => {
  const run = useDroppingSuite({ dropAt: [6 * MB] })

  it('ends the session on the server and forgets it in the browser', async () => {
    const source = dir.join('cancelled.bin')
    await writePseudoRandomFile(source, 20 * MB + 7)
    const page = await run.open()
    // Its status requests fail as a lost connection would: after the drop it waits to resume.
    await page
      .context()
      .route(/\/api\/upload\/[^/]+\/status$/, (route) => route.abort('connectionrefused'))
    const kept = await uploadUntilDropped(page, run.proxy, source)
    await run.linkBack()
    await page.getByRole('button', { name: 'Cancel', exact: true }).click()
    await page.getByText('Upload cancelled.').waitFor()
    expect(await storedState(page)).toBeNull()
    const status = () =>
      fetch(`${run.suite.server.url}/api/upload/${kept.upload.session.id}/status`, {
        headers: { 'X-Owner-Token': kept.upload.ownerToken },
      }).then((answer) => answer.status)
    await expect.poll(status, { timeout: 10_000 }).toBe(404)
  })
})
