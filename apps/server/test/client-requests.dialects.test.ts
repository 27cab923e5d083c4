/**
 * The client core's file requests against the real server: creation, a sender's uploads on both
 * transports and a note, the requester's inbox with and without a password, and management.
 */
import {
  ApiError,
  closeInbox,
  createFileRequest,
  deleteInbox,
  deleteInboxFile,
  downloadInboxFile,
  encryptedSize,
  openInbox,
  openRequest,
  parseLink,
  REQUEST_NOTE_FILE,
  sendNoteToRequest,
  sendToRequest,
  type ApiClient,
  type CreatedFileRequest,
  type InboxLink,
  type RequestLink,
  type UploadProgress,
} from '@fileshare/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { blobFiles } from './backends.js'
import { startTestServer, type TestServer } from './harness.js'
import {
  apiFor,
  drain,
  expectNoBlobs,
  MiB,
  randomSource,
  singleFile,
  wsFactory,
} from './client-support.js'

function requestLink(link: string): RequestLink {
  const parsed = parseLink(link).link
  if (parsed.kind !== 'request') throw new Error(`not a request link: ${link}`)
  return parsed
}

function inboxLink(link: string): InboxLink {
  const parsed = parseLink(link).link
  if (parsed.kind !== 'inbox') throw new Error(`not an inbox link: ${link}`)
  return parsed
}

function newRequest(api: ApiClient, password?: string): Promise<CreatedFileRequest> {
  return createFileRequest(api, {
    message: 'Please send the signed contract 📄',
    acceptsNote: true,
    expireSec: 86_400,
    maxUploads: 5,
    maxSize: 64 * MiB,
    downloads: 3,
    ...(password ? { password } : {}),
  })
}

// Argon2id takes up to a second per derivation on a busy two-core machine.
describe('file requests through the client core', { timeout: 60_000 }, () => {
  let server: TestServer

  beforeAll(async () => {
    server = await startTestServer({
      env: { FILE_CHUNK_MAX_SIZE: String(MiB), PASSWORD_MAX_ATTEMPTS: '2' },
    })
  })
  afterAll(() => server.close())

  for (const password of [undefined, 'inbox password']) {
    it(`runs a request from creation to deletion ${password ? 'with' : 'without'} a password`, async () => {
      const requester = apiFor(server)
      const created = await newRequest(requester, password)
      expect(inboxLink(created.inboxLink).passwordSalt !== undefined).toBe(password !== undefined)

      // Senders: files over the socket and over chunked HTTP, then a note.
      const link = requestLink(created.uploadLink)
      const opened = await openRequest(apiFor(server), link)
      expect(opened).toMatchObject({
        id: created.id,
        brief: { message: 'Please send the signed contract 📄', acceptsNote: true },
        open: true,
        closesAt: created.closesAt,
        // Five submissions, each of files and perhaps a note, kept apart (senderNotes).
        uploadsLeft: 5,
        notesLeft: 5,
        maxUploadSize: 64 * MiB,
      })
      const first = randomSource(3 * MiB + 1)
      const overSocket = await sendToRequest(
        apiFor(server, { webSocket: wsFactory() }),
        opened,
        first.source,
        {
          metadata: singleFile('contract.pdf', first.bytes.length, 'application/pdf'),
          fileCount: 1,
        },
      )
      expect(overSocket.transport).toBe('ws')
      const second = randomSource(2 * MiB + 5)
      const progress: UploadProgress[] = []
      const overHttp = await sendToRequest(apiFor(server), opened, second.source, {
        metadata: { archive: true, files: [{ name: 'a/b.txt', type: 'text/plain', size: 9 }] },
        fileCount: 2,
        onProgress: (p) => progress.push(p),
      })
      expect(overHttp.transport).toBe('chunks')
      expect(progress.at(-1)).toMatchObject({ sentBytes: encryptedSize(2 * MiB + 5) })
      const note = await sendNoteToRequest(
        apiFor(server, { webSocket: wsFactory() }),
        opened,
        'Signed, see attached ✍️',
      )
      expect((await openRequest(apiFor(server), link)).uploadsLeft).toBe(2)

      // The requester opens the inbox and downloads everything.
      const inbox = await openInbox(requester, inboxLink(created.inboxLink), password)
      expect(inbox).toMatchObject({
        id: created.id,
        brief: opened.brief,
        hasPassword: password !== undefined,
        open: true,
        maxUploads: 10,
        usedUploads: 3,
        unreadable: [],
      })
      expect(inbox.uploadLink).toBe(created.uploadLink)
      expect(inbox.inboxOwnerToken).toBe(created.inboxOwnerToken)
      expect(inbox.entries.map((e) => e.id)).toEqual([overSocket.id, overHttp.id, note.id])
      expect(inbox.entries[0]!.metadata).toEqual(
        singleFile('contract.pdf', first.bytes.length, 'application/pdf'),
      )
      expect(inbox.entries[1]).toMatchObject({ fileCount: 2, maxDownloads: 3, downloadCount: 0 })
      expect(inbox.entries[2]!.metadata).toEqual({
        archive: false,
        kind: 'note',
        files: [
          {
            ...REQUEST_NOTE_FILE,
            size: new TextEncoder().encode('Signed, see attached ✍️').length,
          },
        ],
      })
      for (const [entry, bytes] of [
        [overSocket.id, first.bytes],
        [overHttp.id, second.bytes],
      ] as const) {
        const download = await downloadInboxFile(requester, inbox, entry)
        expect(download.plainSize).toBe(bytes.length)
        expect((await drain(download.stream)).equals(Buffer.from(bytes))).toBe(true)
      }
      const noteDownload = await downloadInboxFile(requester, inbox, note.id)
      expect((await drain(noteDownload.stream)).toString('utf8')).toBe('Signed, see attached ✍️')

      // Management: delete one file, close, then delete everything.
      await deleteInboxFile(requester, inbox, overHttp.id)
      const after = await openInbox(requester, inboxLink(created.inboxLink), password)
      expect(after.entries.map((e) => e.id)).toEqual([overSocket.id, note.id])
      expect(after.entries[0]!.downloadCount).toBe(1)
      expect(after.usedUploads).toBe(3)
      await closeInbox(requester, inbox)
      const closed = await openRequest(apiFor(server), link)
      expect(closed).toMatchObject({ open: false, uploadsLeft: 0 })
      for (const api of [apiFor(server), apiFor(server, { webSocket: wsFactory() })]) {
        await expect(sendNoteToRequest(api, opened, 'late')).rejects.toMatchObject({
          status: 410,
          message: 'Request is closed or expired',
        })
      }
      await deleteInbox(requester, inbox)
      await expect(openRequest(apiFor(server), link)).rejects.toMatchObject({ status: 404 })
      await expect(deleteInboxFile(requester, inbox, overSocket.id)).rejects.toBeInstanceOf(
        ApiError,
      )
    })
  }

  it('reports a wrong inbox password as WRONG_PASSWORD, then the lockout as 429', async () => {
    // Security: the inbox password is checked only through the derived token, and guessing is cut off.
    const api = apiFor(server)
    const created = await newRequest(api, 'right')
    const link = inboxLink(created.inboxLink)
    await expect(openInbox(api, link)).rejects.toMatchObject({ code: 'WRONG_PASSWORD' })
    for (let i = 0; i < 2; i++) {
      await expect(openInbox(api, link, 'wrong')).rejects.toMatchObject({ code: 'WRONG_PASSWORD' })
    }
    const locked = (await openInbox(api, link, 'right').catch((e: unknown) => e)) as ApiError
    expect(locked).toBeInstanceOf(ApiError)
    expect(locked.status).toBe(429)
    expect(locked.retryAfterSec).toBeGreaterThan(0)
  })

  it('reserves two slots per submission when notes are accepted', async () => {
    const api = apiFor(server)
    const created = await createFileRequest(api, {
      message: 'files only',
      expireSec: 86_400,
      maxUploads: 1,
      maxSize: MiB,
      downloads: 1,
    })
    const opened = await openRequest(api, requestLink(created.uploadLink))
    expect(opened).toMatchObject({ uploadsLeft: 1, brief: { acceptsNote: false } })
    await sendNoteToRequest(api, opened, 'one')
    await expect(sendNoteToRequest(api, opened, 'two')).rejects.toMatchObject({
      status: 409,
      message: 'Request is full',
    })
    await deleteInbox(api, { id: created.id, inboxOwnerToken: created.inboxOwnerToken })
  })

  for (const transport of ['ws', 'chunks'] as const) {
    it(`frees the slot and stores nothing when an upload over ${transport} is aborted`, async () => {
      const api = apiFor(server, transport === 'ws' ? { webSocket: wsFactory() } : {})
      const created = await newRequest(api)
      const link = requestLink(created.uploadLink)
      const opened = await openRequest(api, link)
      const before = await blobFiles(server)
      const controller = new AbortController()
      const { source } = randomSource(12 * MiB)
      const upload = sendToRequest(api, opened, source, {
        metadata: singleFile('big.bin', 12 * MiB),
        fileCount: 1,
        signal: controller.signal,
        onProgress: (p) => {
          if (p.sentBytes >= MiB) controller.abort()
        },
      })
      await expect(upload).rejects.toMatchObject({ name: 'AbortError' })
      await expect
        .poll(async () => (await openRequest(api, link)).uploadsLeft, { timeout: 5000 })
        .toBe(5)
      await expect.poll(async () => blobFiles(server), { timeout: 5000 }).toEqual(before)
      await deleteInbox(api, { id: created.id, inboxOwnerToken: created.inboxOwnerToken })
    })
  }

  it('leaves no blob behind once every request is deleted', async () => {
    await expectNoBlobs(server)
  })
})
