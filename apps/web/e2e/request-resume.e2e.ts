/**
 * Resumed uploads into a file request, on the sender's page: the scenarios both upload pages pass
 * (resume-scenarios.ts), the reload's even when the unfinished upload holds the request's only
 * slot, and the page's own: new files that only that slot keeps out are told so, and starting a
 * new upload ends the kept one and frees its slot. The requester's inbox then holds the one
 * upload, byte for byte.
 */
import { createHash } from 'node:crypto'

import {
  createFileRequest,
  downloadInboxFile,
  openInbox,
  parseLink,
  type InboxLink,
} from '@fileshare/protocol'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'

import { requestResumeKey } from '../src/lib/upload/resume-keys.js'
import { browserAvailable } from './browser.js'
import { PAGE_CLOSED_DROPS, useDroppingSuite, type DroppingSuite } from './dropping-suite.js'
import { sha256File } from './files.js'
import { nodeApi } from './node-client.js'
import {
  describeResumeScenarios,
  reloadThenPickOther,
  storedState,
  type UploadPage,
} from './resume-scenarios.js'
import { useTempDir } from './temp-dir.js'

const MB = 1_000_000

/** A request taking `maxUploads` uploads (no notes), created with the client core from Node. */
async function createRequest(run: DroppingSuite, maxUploads: number) {
  const api = nodeApi(run.url)
  const config = await api.config()
  expect(config.fileRequestUploadOptions).toContain(maxUploads)
  return createFileRequest(api, {
    message: 'Send the recordings, please.',
    expireSec: config.fileRequestExpireOptions[0]!,
    maxUploads,
    maxSize: config.fileRequestMaxSize,
    downloads: config.fileRequestDownloadOptions[0]!,
  })
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

async function sent(page: Page): Promise<void> {
  await page.getByRole('heading', { name: 'Sent', level: 1 }).waitFor({ timeout: 120_000 })
}

/** A new request's sender page: its upload ends with "Sent", and arrives in the inbox. */
const REQUEST_PAGE: UploadPage = {
  name: 'a request’s sender page',
  submit: 'Send',
  async target(run, onlySlot) {
    const request = await createRequest(run, onlySlot ? 1 : 5)
    return {
      path: request.uploadLink,
      storageKey: requestResumeKey(request.id),
      socketPath: `/api/request/${request.id}/upload/ws`,
      sent,
      receivedHash: () => inboxHash(run, request.inboxLink),
    }
  },
}

const dir = useTempDir()

describeResumeScenarios(REQUEST_PAGE, dir)

describe.runIf(browserAvailable)('a new upload beside one holding the only slot', () => {
  const run = useDroppingSuite(PAGE_CLOSED_DROPS)

  it('says the unfinished upload holds it, and a new upload ends that one and is sent', async () => {
    const { target, page, other } = await reloadThenPickOther(run, REQUEST_PAGE, dir, {
      source: ['held.bin', 20 * MB + 9],
      other: ['instead.bin', 1 * MB + 9],
    })
    const send = page.getByRole('button', { name: REQUEST_PAGE.submit, exact: true })
    await send.click()
    await page
      .getByText('your unfinished upload of held.bin holds its place', { exact: false })
      .waitFor()
    await expect(page.getByText('files and a note cannot both be sent').count()).resolves.toBe(0)

    // "Start a new upload" ends the unfinished one on the server, which frees its slot.
    await page.getByRole('button', { name: 'Start a new upload' }).click()
    await send.click()
    await sent(page)
    expect(await storedState(page, target.storageKey)).toBeNull()
    expect(await target.receivedHash(page)).toBe(await sha256File(other))
  })
})
