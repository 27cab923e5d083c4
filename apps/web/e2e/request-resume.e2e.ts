/**
 * Resumed uploads into a file request, through a proxy that cuts every connection at given byte
 * counts: a sender's upload whose connection drops resumes by itself, over the WebSocket or, where
 * WebSockets are refused, over chunks from the server's `nextIndex`; a sender's page closed
 * mid-upload continues the same upload into the same request after a reload, even when that
 * upload holds the request's last slot, and refuses different files; new files that only that
 * slot keeps out are told so, and starting a new upload ends the kept one and frees its slot. The
 * requester's inbox then holds the one upload, byte for byte.
 */
import { createHash } from 'node:crypto'
import { basename } from 'node:path'

import {
  createFileRequest,
  downloadInboxFile,
  openInbox,
  parseLink,
  type InboxLink,
} from '@fileshare/protocol'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { pickFiles } from './actions.js'
import { browserAvailable } from './browser.js'
import {
  CHUNKED_DROPS,
  expectResentFromNextIndex,
  useDroppingSuite,
  waitForResume,
  type DroppingSuite,
} from './dropping-suite.js'
import { sha256File, tempDir, writePseudoRandomFile, type TempDir } from './files.js'
import { nodeApi } from './node-client.js'

const MB = 1_000_000

interface CreatedRequest {
  id: string
  uploadLink: string
  inboxLink: string
}

/** A request taking `maxUploads` uploads (no notes), created with the client core from Node. */
async function createRequest(run: DroppingSuite, maxUploads: number): Promise<CreatedRequest> {
  const api = nodeApi(run.url)
  const config = await api.config()
  expect(config.fileRequestUploadOptions).toContain(maxUploads)
  const created = await createFileRequest(api, {
    message: 'Send the recordings, please.',
    expireSec: config.fileRequestExpireOptions[0]!,
    maxUploads,
    maxSize: config.fileRequestMaxSize,
    downloads: config.fileRequestDownloadOptions[0]!,
  })
  return created
}

/** The requester's side: the inbox holds exactly one upload; answers its plaintext's SHA-256. */
async function inboxHash(run: DroppingSuite, inboxLink: string): Promise<string> {
  const api = nodeApi(run.suite.server.url)
  const inbox = await openInbox(api, parseLink(inboxLink).link as InboxLink)
  expect(inbox.entries).toHaveLength(1)
  const download = await downloadInboxFile(api, inbox, inbox.entries[0]!.id)
  const hash = createHash('sha256')
  for await (const chunk of download.stream as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk)
  }
  return hash.digest('hex')
}

/** What the sender's page keeps of its unfinished upload into request `id`. */
function storedState(page: Page, id: string): Promise<string | null> {
  return page.evaluate(
    (key) => localStorage.getItem(key),
    `fileshare.unfinishedUpload.request.${id}`,
  )
}

async function send(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Send', exact: true }).click()
}

async function sent(page: Page): Promise<void> {
  await page.getByRole('heading', { name: 'Sent', level: 1 }).waitFor({ timeout: 120_000 })
}

/**
 * Sends `source` into the request until the proxy's first drop, closes the page while it is cut
 * off, and opens the sender's page again, which offers to resume the upload.
 */
async function reloadedMidUpload(
  run: DroppingSuite,
  request: CreatedRequest,
  source: string,
): Promise<Page> {
  const first = await run.open(request.uploadLink)
  await pickFiles(first, source)
  await send(first)
  // The state is kept once the server names the upload; the page closes while it is cut off.
  await expect.poll(() => storedState(first, request.id), { timeout: 30_000 }).not.toBeNull()
  await expect.poll(() => run.proxy.drops, { timeout: 60_000 }).toBe(1)
  const context = first.context()
  await first.close({ runBeforeUnload: false })
  await run.linkBack()
  const page = await context.newPage()
  await page.goto(request.uploadLink)
  await page.getByText(`An upload of ${basename(source)} did not finish.`).waitFor()
  return page
}

let dir: TempDir
beforeAll(async () => {
  dir = await tempDir()
})
afterAll(async () => {
  await dir?.remove()
})

describe.runIf(browserAvailable)('an upload into a request whose connection drops', () => {
  // Client-to-server bytes: the page's requests are small beside the upload's.
  const run = useDroppingSuite({ dropAt: [8 * MB, 14 * MB] })

  it('resumes by itself, says where, and reaches the inbox byte for byte', async () => {
    const request = await createRequest(run, 5)
    const source = dir.join('dropped.bin')
    await writePseudoRandomFile(source, 40 * MB + 5)
    const page = await run.open(request.uploadLink)
    await pickFiles(page, source)
    await send(page)
    await waitForResume(page)
    await sent(page)
    expect(run.proxy.drops).toBe(2)
    // Done: nothing of the upload is kept in the browser any longer.
    expect(await storedState(page, request.id)).toBeNull()
    expect(await inboxHash(run, request.inboxLink)).toBe(await sha256File(source))
  })
})

describe.runIf(browserAvailable)('an upload into a request whose page closed', () => {
  const run = useDroppingSuite({ dropAt: [6 * MB] })

  it('continues into the same request after a reload with the same file, refusing another', async () => {
    // One upload: the unfinished one holds the request's only slot while it waits.
    const request = await createRequest(run, 1)
    const source = dir.join('reloaded.bin')
    const other = dir.join('other.bin')
    await writePseudoRandomFile(source, 20 * MB + 3)
    await writePseudoRandomFile(other, 20 * MB + 3)
    const page = await reloadedMidUpload(run, request, source)
    await pickFiles(page, other)
    await page.getByRole('button', { name: 'Resume upload' }).click()
    await page
      .getByText('These are not the files of the unfinished upload', { exact: false })
      .waitFor()
    expect(await storedState(page, request.id)).not.toBeNull()

    await page.getByRole('button', { name: 'Remove other.bin' }).click()
    await pickFiles(page, source)
    await page.getByRole('button', { name: 'Resume upload' }).click()
    await sent(page)
    expect(await storedState(page, request.id)).toBeNull()
    expect(await inboxHash(run, request.inboxLink)).toBe(await sha256File(source))
  })
})

describe.runIf(browserAvailable)('a new upload beside one holding the only slot', () => {
  const run = useDroppingSuite({ dropAt: [6 * MB] })

  it('says the unfinished upload holds it, and a new upload ends that one and is sent', async () => {
    const request = await createRequest(run, 1)
    const source = dir.join('held.bin')
    const other = dir.join('instead.bin')
    await writePseudoRandomFile(source, 20 * MB + 9)
    await writePseudoRandomFile(other, 1 * MB + 9)
    const page = await reloadedMidUpload(run, request, source)
    await pickFiles(page, other)
    await send(page)
    await page
      .getByText('your unfinished upload of held.bin holds its place', { exact: false })
      .waitFor()
    await expect(page.getByText('files and a note cannot both be sent').count()).resolves.toBe(0)

    // "Start a new upload" ends the unfinished one on the server, which frees its slot.
    await page.getByRole('button', { name: 'Start a new upload' }).click()
    await send(page)
    await sent(page)
    expect(await storedState(page, request.id)).toBeNull()
    expect(await inboxHash(run, request.inboxLink)).toBe(await sha256File(other))
  })
})

describe.runIf(browserAvailable)('an upload into a request that falls back to chunks', () => {
  const run = useDroppingSuite(CHUNKED_DROPS)

  it('resumes from the status’s nextIndex after a drop and reaches the inbox byte for byte', async () => {
    const request = await createRequest(run, 5)
    const source = dir.join('chunked.bin')
    const size = 30 * MB + 1
    await writePseudoRandomFile(source, size)
    const { page, statuses } = await run.openRecording(request.uploadLink)
    await pickFiles(page, source)
    await send(page)
    await waitForResume(page)
    await sent(page)
    expect(run.proxy.drops).toBe(1)
    expect(run.recorder.upgrades).toEqual([`/api/request/${request.id}/upload/ws`])
    expectResentFromNextIndex(statuses, run.recorder.requests, size)
    expect(await storedState(page, request.id)).toBeNull()
    expect(await inboxHash(run, request.inboxLink)).toBe(await sha256File(source))
  })
})
