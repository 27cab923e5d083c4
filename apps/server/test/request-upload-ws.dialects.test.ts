/**
 * The request upload socket over real sockets against the real server: the upload into a
 * request, refusals with the status of the same HTTP refusal, the slot freed by a socket that
 * ends early or stalls, a closed request, and the whole client cryptography end to end (spec:
 * Uploading into a request; Upload slot inside a request).
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

import {
  ERROR_MESSAGES,
  PASSWORD_ALGO,
  buildLink,
  createDecryptStream,
  createEncryptStream,
  createRequest,
  decryptMetadata,
  deriveInboxAccess,
  deriveUploadKeys,
  deriveUploadToken,
  encryptMetadata,
  encryptedSize,
  fromBase64Url,
  fromUtf8,
  generateSecret,
  generateUploadSalt,
  lockSecret,
  openBrief,
  openVault,
  parseLink,
  toBase64Url,
  unlockSecret,
  unwrapUploadSecret,
  utf8,
  wrapUploadSecret,
  type FileMetadata,
  type FileRequestResponse,
  type InboxResponse,
  type RequestUploadWsFinalizeFrame,
  type RequestUploadWsInitFrame,
} from '@fileshare/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { WS_MAX_BUFFER_MIN, type Config } from '../src/config.js'
import { createLogger } from '../src/logger.js'
import { createServices, type Services } from '../src/composition/container.js'
import type { BlobStore } from '../src/storage/blob-store.js'
import { requestUploadRoute } from '../src/ws/request-upload-route.js'
import { attachUploadSockets, type UploadSockets } from '../src/ws/upload-socket.js'
import { randomToken, startTestServer, type TestServer } from './harness.js'
import { interceptWrites } from './intercepted-blobs.js'
import { MALFORMED_FRAME, NOT_UTF8, TestSocket, upgradeAnswer, type Frame } from './test-socket.js'

const KiB = 1024
const MiB = 1024 * KiB
const BASE_URL = 'https://files.example'
const DAY = 86_400
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ENV = { BASE_URL, FILE_MAX_SIZE: '8MB', FILE_REQUEST_DAILY_LIMIT: '0' }
/** Commits fsync; on a busy machine that can take a while. */
const POLL = { timeout: 10_000, interval: 25 }
/** Any session context: these tests look up the live session of an id they opened. */
const anyContext = (context: unknown): context is unknown => context !== undefined
/** How soon a socket that ended early must have given its slot back. */
const FREED = { timeout: 1000, interval: 5 }

function requestSocketUrl(httpUrl: string, requestId: string): string {
  return `${httpUrl.replace(/^http/, 'ws')}/api/request/${requestId}/upload/ws`
}

/** Random bytes of the given length as canonical base64url, as the request routes want them. */
function canonical(bytes: number): string {
  return toBase64Url(randomBytes(bytes))
}

type InitFields = Record<string, unknown>

/** A valid `init` frame of `size` bytes; `overrides` replace fields, `undefined` removes one. */
function initFrame(uploadToken: string, size: number, overrides: InitFields = {}): Frame {
  const request: InitFields = {
    uploadToken,
    salt: canonical(32),
    contentLength: size,
    fileCount: 1,
    ...overrides,
  }
  return { type: 'init', request } satisfies Frame
}

/** A `finalize` frame whose fields have the right sizes; `overrides` replace them. */
function finalizeFrame(overrides: Frame = {}): Frame {
  return {
    type: 'finalize',
    wrapEnc: canonical(65),
    wrapCiphertext: canonical(48),
    encryptedMeta: canonical(1040),
    metaNonce: canonical(12),
    ...overrides,
  } satisfies Frame
}

/** The same declaration as `POST /api/request/:id/upload/init` headers. */
function initHeaders(frame: Frame): Record<string, string> {
  const names: Record<string, string> = {
    uploadToken: 'X-Upload-Token',
    salt: 'X-Salt',
    contentLength: 'X-Content-Length',
    fileCount: 'X-File-Count',
  }
  const fields = frame.request as InitFields
  return Object.fromEntries(
    Object.entries(fields)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [names[name]!, String(value)]),
  )
}

interface Inbox {
  id: string
  uploadToken: string
  inboxToken: string
  inboxOwnerToken: string
}

interface InboxOptions {
  maxUploads?: number
  maxSize?: number
}

/** A new request through `POST /api/request`, with a body built by the protocol package. */
async function createInbox(httpUrl: string, options: InboxOptions = {}): Promise<Inbox> {
  const { fields } = await createRequest({ message: 'Please send the files', acceptsNote: false })
  const res = await fetch(`${httpUrl}/api/request`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      ...fields,
      expireSec: DAY,
      maxUploads: options.maxUploads ?? 5,
      maxSize: options.maxSize ?? 8 * MiB,
      downloads: 3,
      hasPassword: false,
    }),
  })
  expect(res.status).toBe(201)
  const { id } = (await res.json()) as { id: string }
  return {
    id,
    uploadToken: fields.uploadToken,
    inboxToken: fields.inboxAuthToken,
    inboxOwnerToken: fields.inboxOwnerToken,
  }
}

async function readInbox(httpUrl: string, inbox: Inbox): Promise<InboxResponse> {
  const res = await fetch(`${httpUrl}/api/inbox/${inbox.id}`, {
    headers: { 'X-Inbox-Token': inbox.inboxToken },
  })
  expect(res.status).toBe(200)
  return (await res.json()) as InboxResponse
}

async function downloadFromInbox(httpUrl: string, inbox: Inbox, uploadId: string) {
  const res = await fetch(`${httpUrl}/api/inbox/${inbox.id}/file/${uploadId}`, {
    headers: { 'X-Inbox-Token': inbox.inboxToken },
  })
  expect(res.status).toBe(200)
  return Buffer.from(await res.arrayBuffer())
}

/** `uploadsLeft` of `GET /api/request/:id`: free slots, as a sender sees them. */
async function uploadsLeft(httpUrl: string, inbox: Inbox): Promise<number> {
  const res = await fetch(`${httpUrl}/api/request/${inbox.id}`, {
    headers: { 'X-Upload-Token': inbox.uploadToken },
  })
  expect(res.status).toBe(200)
  return ((await res.json()) as FileRequestResponse).uploadsLeft
}

async function closeInbox(httpUrl: string, inbox: Inbox): Promise<void> {
  const res = await fetch(`${httpUrl}/api/inbox/${inbox.id}/close`, {
    method: 'POST',
    headers: { 'X-Inbox-Owner-Token': inbox.inboxOwnerToken },
  })
  expect(res.status).toBe(200)
}

/** Uploads `body` over a new socket and resolves with the upload id once `done` arrived. */
async function uploadOver(url: string, inbox: Inbox, body: Uint8Array): Promise<string> {
  const socket = await TestSocket.open(url)
  const id = await socket.init(initFrame(inbox.uploadToken, body.length))
  socket.sendBytes(body)
  socket.sendJson(finalizeFrame())
  await socket.waitFor('done')
  return id
}

/**
 * After a failed upload into `inbox` (one slot): the slot is free again, nothing was listed, and
 * a new upload takes it.
 */
async function expectSlotBack(httpUrl: string, url: string, inbox: Inbox): Promise<void> {
  await expect.poll(() => uploadsLeft(httpUrl, inbox), FREED).toBe(1)
  expect((await readInbox(httpUrl, inbox)).uploads).toEqual([])
  const body = randomBytes(100)
  const id = await uploadOver(url, inbox, body)
  expect((await readInbox(httpUrl, inbox)).uploads.map((upload) => upload.id)).toEqual([id])
}

describe('request upload socket', () => {
  let server: TestServer
  const socketUrl = (requestId: string) => requestSocketUrl(server.url, requestId)

  beforeAll(async () => {
    server = await startTestServer({ env: ENV })
  })
  afterAll(() => server.close())

  describe('an upload that completes', () => {
    it.each([
      ['integers', (size: number) => ({ contentLength: size, fileCount: 3 })],
      ['decimal strings', (size: number) => ({ contentLength: String(size), fileCount: '3' })],
    ])(
      'takes contentLength and fileCount as %s, answers ready and done, and lists the upload in the inbox',
      async (_name, declared) => {
        const inbox = await createInbox(server.url)
        const body = randomBytes(3 * MiB + 1234)
        const init = initFrame(inbox.uploadToken, body.length, declared(body.length))
        const finalize = finalizeFrame()
        const socket = await TestSocket.open(socketUrl(inbox.id))
        const id = await socket.init(init)
        expect(id).toMatch(UUID)
        socket.sendBytes(body, 256 * KiB)
        socket.sendJson(finalize)
        expect(await socket.waitFor('done')).toEqual({ type: 'done', id })
        expect((await socket.closed).code).toBe(1000)
        expect(socket.frames.map((f) => f.type)).toEqual(['ready', 'done'])

        const listed = await readInbox(server.url, inbox)
        expect(listed.usedUploads).toBe(1)
        expect(listed.uploads).toEqual([
          expect.objectContaining({
            id,
            size: body.length,
            fileCount: 3,
            salt: (init.request as InitFields).salt,
            wrapEnc: finalize.wrapEnc,
            wrapCiphertext: finalize.wrapCiphertext,
            encryptedMeta: finalize.encryptedMeta,
            metaNonce: finalize.metaNonce,
            downloadCount: 0,
          }),
        ])
        expect((await downloadFromInbox(server.url, inbox, id)).equals(body)).toBe(true)
      },
    )
  })

  describe('refusals send the status of the same HTTP refusal, then close with 1008', () => {
    interface Case {
      status: number
      /** Fields that replace the valid ones of the init frame. */
      fields?: (inbox: Inbox) => InitFields
      /** The request the upload goes to; the fresh request by default. */
      target?: (inbox: Inbox) => Promise<string> | string
      inbox?: InboxOptions
    }
    const cases: Array<[string, Case]> = [
      ['a wrong upload token', { status: 404, fields: () => ({ uploadToken: randomToken() }) }],
      ['a missing upload token', { status: 404, fields: () => ({ uploadToken: undefined }) }],
      ['an unknown request', { status: 404, target: () => randomUUID() }],
      ['a 16-byte salt', { status: 400, fields: () => ({ salt: canonical(16) }) }],
      ['a padded salt', { status: 400, fields: () => ({ salt: `${canonical(32)}=` }) }],
      ['no files', { status: 400, fields: () => ({ fileCount: 0 }) }],
      ['too many files', { status: 400, fields: () => ({ fileCount: 1001 }) }],
      [
        'a size that is not a whole number',
        { status: 400, fields: () => ({ contentLength: 1.5 }) },
      ],
      ['a size with a unit', { status: 400, fields: () => ({ contentLength: '10 bytes' }) }],
      ['no size', { status: 400, fields: () => ({ contentLength: undefined }) }],
      [
        'a size over FILE_MAX_SIZE',
        { status: 413, fields: () => ({ contentLength: 8 * MiB + 1 }) },
      ],
      [
        "a size over the request's maxSize",
        { status: 413, inbox: { maxSize: MiB }, fields: () => ({ contentLength: MiB + 1 }) },
      ],
      [
        'a request whose slots are all taken',
        {
          status: 409,
          inbox: { maxUploads: 1 },
          target: async (inbox) => {
            const res = await fetch(`${server.url}/api/request/${inbox.id}/upload/init`, {
              method: 'POST',
              headers: initHeaders(initFrame(inbox.uploadToken, 10)),
            })
            expect(res.status).toBe(201)
            return inbox.id
          },
        },
      ],
      [
        'a closed request',
        {
          status: 410,
          target: async (inbox) => {
            await closeInbox(server.url, inbox)
            return inbox.id
          },
        },
      ],
    ]

    it.each(cases)('refuses %s', async (_name, refusal) => {
      const inbox = await createInbox(server.url, refusal.inbox)
      const requestId = refusal.target ? await refusal.target(inbox) : inbox.id
      const frame = initFrame(inbox.uploadToken, 10, refusal.fields?.(inbox))
      const http = await fetch(`${server.url}/api/request/${requestId}/upload/init`, {
        method: 'POST',
        headers: initHeaders(frame),
      })
      const httpBody = (await http.json()) as { error: string }
      expect(http.status).toBe(refusal.status)

      const socket = await TestSocket.open(socketUrl(requestId))
      expect(await socket.refusal(frame)).toMatchObject({
        type: 'error',
        message: httpBody.error,
        status: refusal.status,
      })
      expect((await readInbox(server.url, inbox)).usedUploads).toBe(0)
    })

    it.each([
      ['no request object', { type: 'init' }],
      ['a request that is not an object', { type: 'init', request: 'uploadToken=abc' }],
      ['the normal upload headers instead', { type: 'init', headers: { contentLength: '10' } }],
    ])('refuses an init frame with %s as invalid', async (_name, frame) => {
      const inbox = await createInbox(server.url)
      const socket = await TestSocket.open(socketUrl(inbox.id))
      expect(await socket.refusal(frame)).toMatchObject({
        type: 'error',
        message: 'Invalid request',
        status: 400,
      })
    })

    // Resuming is asked for with JSON `true` or the header `true` (docs/api.md); nothing else.
    it.each([
      ['a string', 'true', '1'],
      ['a number', 1, 'yes'],
      ['null', null, 'TRUE'],
    ])(
      'refuses a resumable field that is %s, and a non-canonical X-Resumable, as invalid',
      async (_name, field, header) => {
        const inbox = await createInbox(server.url, { maxUploads: 1 })
        const frame = initFrame(inbox.uploadToken, 10)
        const socket = await TestSocket.open(socketUrl(inbox.id))
        expect(await socket.refusal({ ...frame, resumable: field })).toEqual({
          type: 'error',
          message: 'Invalid request',
          status: 400,
          details: { resumable: 'must be true or false' },
        })
        const http = await fetch(`${server.url}/api/request/${inbox.id}/upload/init`, {
          method: 'POST',
          headers: { ...initHeaders(frame), 'X-Resumable': header },
        })
        expect(http.status).toBe(400)
        expect(await http.json()).toEqual({
          error: 'Invalid request',
          details: { 'x-resumable': 'must be true or false' },
        })
        // Neither refusal took the one slot.
        expect(await uploadsLeft(server.url, inbox)).toBe(1)
      },
    )

    it('refuses a file count that is a JSON boolean as invalid', async () => {
      const inbox = await createInbox(server.url)
      const socket = await TestSocket.open(socketUrl(inbox.id))
      const frame = initFrame(inbox.uploadToken, 10, { fileCount: true })
      expect(await socket.refusal(frame)).toMatchObject({ type: 'error', status: 400 })
    })
  })

  describe('finalize', () => {
    it.each([
      ['a 64-byte wrapEnc', { wrapEnc: canonical(64) }],
      ['a missing metaNonce', { metaNonce: undefined }],
      ['metadata of 16 bytes', { encryptedMeta: canonical(16) }],
    ])('answers %s with 400, closes with 1008 and frees the slot', async (_name, overrides) => {
      const inbox = await createInbox(server.url, { maxUploads: 1 })
      const body = randomBytes(1000)
      const socket = await TestSocket.open(socketUrl(inbox.id))
      const id = await socket.init(initFrame(inbox.uploadToken, body.length))
      socket.sendBytes(body)
      socket.sendJson(finalizeFrame(overrides))
      expect((await socket.closed).code).toBe(1008)
      expect(socket.frames).toEqual([
        { type: 'ready', id },
        expect.objectContaining({ type: 'error', message: 'Invalid request', status: 400 }),
      ])
      await expect.poll(() => uploadsLeft(server.url, inbox), FREED).toBe(1)
      await uploadOver(socketUrl(inbox.id), inbox, randomBytes(10))
      const listed = await readInbox(server.url, inbox)
      expect(listed.uploads.map((upload) => upload.id)).not.toContain(id)
    })

    // Spec: a request's finalize frame carries metadata of up to 75,000 bytes, so it is longer
    // than any other control frame; it is taken once every declared byte is in, and not before.
    it('takes a finalize frame with the largest metadata the spec allows', async () => {
      const inbox = await createInbox(server.url, { maxUploads: 1 })
      const body = randomBytes(1000)
      const socket = await TestSocket.open(socketUrl(inbox.id))
      const id = await socket.init(initFrame(inbox.uploadToken, body.length))
      socket.sendBytes(body)
      socket.sendJson(finalizeFrame({ encryptedMeta: canonical(75_000) }))
      expect((await socket.closed).code).toBe(1000)
      expect(socket.frames).toEqual([
        { type: 'ready', id },
        expect.objectContaining({ type: 'done', id }),
      ])
      const listed = await readInbox(server.url, inbox)
      expect(listed.uploads.map((upload) => upload.id)).toEqual([id])
    })

    it('refuses a long control frame before every byte is in, and one past 128 KB after', async () => {
      for (const [sent, frame] of [
        [999, finalizeFrame({ encryptedMeta: canonical(75_000) })],
        [1000, finalizeFrame({ encryptedMeta: canonical(100_000) })],
      ] as const) {
        const inbox = await createInbox(server.url, { maxUploads: 1 })
        const socket = await TestSocket.open(socketUrl(inbox.id))
        const id = await socket.init(initFrame(inbox.uploadToken, 1000))
        socket.sendBytes(randomBytes(sent))
        socket.sendJson(frame)
        expect((await socket.closed).code).toBe(1009)
        expect(socket.frames).toEqual([
          { type: 'ready', id },
          { type: 'error', message: 'Control frame too large', status: 413 },
        ])
        await expect.poll(() => uploadsLeft(server.url, inbox), FREED).toBe(1)
      }
    })

    it('answers a finalize before every declared byte with 400 and frees the slot', async () => {
      const inbox = await createInbox(server.url, { maxUploads: 1 })
      const socket = await TestSocket.open(socketUrl(inbox.id))
      const id = await socket.init(initFrame(inbox.uploadToken, 1000))
      socket.sendBytes(randomBytes(999))
      socket.sendJson(finalizeFrame())
      expect((await socket.closed).code).toBe(1008)
      expect(socket.frames).toEqual([
        { type: 'ready', id },
        {
          type: 'error',
          message: 'Body size does not match declared content length',
          status: 400,
        },
      ])
      await expect.poll(() => uploadsLeft(server.url, inbox), FREED).toBe(1)
      await uploadOver(socketUrl(inbox.id), inbox, randomBytes(10))
    })
  })

  describe('a socket that ends before done', () => {
    // Spec: "A socket closing before `done` frees its slot at once", however it ends, for a
    // client that did not ask to resume (one that did keeps it: below, and resume.suite.ts).
    it.each([
      ['closes', (socket: TestSocket) => socket.ws.close(1000)],
      ['goes away (1001)', (socket: TestSocket) => socket.ws.close(1001)],
      ['drops the connection', (socket: TestSocket) => socket.ws.terminate()],
    ])(
      'frees its slot at once when the client %s',
      async (_name, end) => {
        const inbox = await createInbox(server.url, { maxUploads: 1 })
        const url = socketUrl(inbox.id)
        const first = await TestSocket.open(url)
        const firstId = await first.init(initFrame(inbox.uploadToken, 2 * MiB))
        first.sendBytes(randomBytes(MiB + 5))
        const { sessions } = server.service.services
        await expect
          .poll(() => sessions.get(firstId, anyContext)?.bytesAccepted, POLL)
          .toBe(MiB + 5)

        // While the first socket runs, its slot is taken.
        const blocked = await TestSocket.open(url)
        expect(await blocked.refusal(initFrame(inbox.uploadToken, 10))).toMatchObject({
          status: 409,
        })

        end(first)
        await first.closed
        // "At once" means within moments, not after the progress window or the keepalive: the
        // server notices the close, aborts the session (which removes the partial blob) and its
        // end frees the slot.
        await expect.poll(() => uploadsLeft(server.url, inbox), FREED).toBe(1)
        const body = randomBytes(100)
        const id = await uploadOver(url, inbox, body)
        const listed = await readInbox(server.url, inbox)
        expect(listed.uploads.map((upload) => upload.id)).toEqual([id])
        expect(id).not.toBe(firstId)
        // The ended session is gone for good: no resume reaches it.
        const resumed = await TestSocket.open(url)
        expect(await resumed.refusal({ type: 'resume', uploadId: firstId, offset: 0 })).toEqual({
          type: 'error',
          message: 'Upload not found',
          status: 404,
        })
      },
      30_000,
    )

    it('keeps its slot for a resume when a client that asked to resume drops', async () => {
      const inbox = await createInbox(server.url, { maxUploads: 1 })
      const url = socketUrl(inbox.id)
      const body = randomBytes(2 * MiB)
      const first = await TestSocket.open(url)
      const firstId = await first.init({
        ...initFrame(inbox.uploadToken, body.length),
        resumable: true,
      })
      first.sendBytes(body.subarray(0, MiB + 5))
      const { sessions, sessionRows: streamed } = server.service.services
      await expect.poll(() => sessions.get(firstId, anyContext)?.bytesAccepted, POLL).toBe(MiB + 5)
      first.ws.terminate()
      await first.closed
      await expect.poll(async () => (await streamed.find(firstId))?.holder, POLL).toBeNull()
      // The dormant session holds the one slot.
      expect(await uploadsLeft(server.url, inbox)).toBe(0)
      const blocked = await TestSocket.open(url)
      expect(await blocked.refusal(initFrame(inbox.uploadToken, 10))).toMatchObject({
        status: 409,
      })
      const resumed = await TestSocket.open(url)
      resumed.sendJson({ type: 'resume', uploadId: firstId, offset: MiB + 5 })
      const ready = await resumed.waitFor('ready')
      expect(ready).toMatchObject({ type: 'ready', id: firstId })
      resumed.sendBytes(body.subarray(ready.offset as number), 256 * KiB)
      resumed.sendJson(finalizeFrame())
      expect(await resumed.waitFor('done')).toEqual({ type: 'done', id: firstId })
      expect((await downloadFromInbox(server.url, inbox, firstId)).equals(body)).toBe(true)
    }, 30_000)
  })

  describe('frames the WebSocket layer refuses get an error frame, and give the slot back', () => {
    it.each([
      [
        'a text frame that is not UTF-8',
        1003,
        { type: 'error', message: 'Unsupported frame', status: 400 },
        (socket: TestSocket) => socket.ws.send(NOT_UTF8, { binary: false }),
      ],
      [
        'a malformed frame',
        1002,
        { type: 'error', message: 'Protocol violation', status: 400 },
        (socket: TestSocket) => socket.writeRaw(MALFORMED_FRAME),
      ],
    ])('refuses %s with %i', async (_name, code, error, refused) => {
      const inbox = await createInbox(server.url, { maxUploads: 1 })
      const url = socketUrl(inbox.id)
      const socket = await TestSocket.open(url)
      const id = await socket.init(initFrame(inbox.uploadToken, 2 * MiB))
      socket.sendBytes(randomBytes(MiB))
      refused(socket)
      expect((await socket.closed).code).toBe(code)
      expect(socket.frames).toEqual([{ type: 'ready', id }, error])
      await expectSlotBack(server.url, url, inbox)
    })
  })

  describe('a request closed while an upload runs', () => {
    it('refuses new socket uploads with 410 and lets the running one finish', async () => {
      const inbox = await createInbox(server.url)
      const body = randomBytes(MiB)
      const running = await TestSocket.open(socketUrl(inbox.id))
      const id = await running.init(initFrame(inbox.uploadToken, body.length))
      running.sendBytes(body.subarray(0, 512 * KiB))

      await closeInbox(server.url, inbox)
      const late = await TestSocket.open(socketUrl(inbox.id))
      expect(await late.refusal(initFrame(inbox.uploadToken, 10))).toMatchObject({
        type: 'error',
        status: 410,
      })

      running.sendBytes(body.subarray(512 * KiB))
      running.sendJson(finalizeFrame())
      expect(await running.waitFor('done')).toEqual({ type: 'done', id })
      const listed = await readInbox(server.url, inbox)
      expect(listed.open).toBe(false)
      expect(listed.uploads.map((upload) => upload.id)).toEqual([id])
    })
  })

  describe('the upgrade', () => {
    it('answers 404 for any other path under /api/request', async () => {
      const id = randomUUID()
      for (const path of [
        `/api/request/${id.toUpperCase()}/upload/ws`,
        '/api/request/not-a-uuid/upload/ws',
        `/api/request/${id}/upload/ws/`,
        `/api/request/${id}/upload/wss`,
        `/api/request/${id}/upload`,
        `/api/request/${id}x/upload/ws`,
        `/api/request//upload/ws`,
      ]) {
        expect(await upgradeAnswer(`${server.url.replace(/^http/, 'ws')}${path}`), path).toEqual({
          status: 404,
          body: { error: 'Not found' },
        })
      }
    })

    it('refuses another Origin with 403 before upgrading', async () => {
      expect(
        await upgradeAnswer(socketUrl(randomUUID()), { Origin: 'https://evil.example' }),
      ).toEqual({ status: 403, body: { error: 'Origin not allowed' } })
    })
  })

  describe('the real client cryptography', () => {
    /** Runs `bytes` through a record cipher stream, as clients do. */
    async function transform(
      bytes: Uint8Array,
      cipher: TransformStream<Uint8Array, Uint8Array>,
    ): Promise<Uint8Array> {
      const source = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes)
          controller.close()
        },
      })
      return new Uint8Array(await new Response(source.pipeThrough(cipher)).arrayBuffer())
    }

    it('carries two files and a note from a sender to the requester behind a password-protected inbox link', async () => {
      const password = 'correct horse battery staple'
      // The requester creates the request and keeps the inbox link behind a password.
      const created = await createRequest({ message: 'Your contracts, please', acceptsNote: true })
      const res = await fetch(`${server.url}/api/request`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          ...created.fields,
          expireSec: DAY,
          maxUploads: 10,
          maxSize: 8 * MiB,
          downloads: 1,
          hasPassword: true,
        }),
      })
      expect(res.status).toBe(201)
      const { id: requestId } = (await res.json()) as { id: string }
      const lock = await lockSecret(created.inboxSecret, password)
      const inboxLink = buildLink(BASE_URL, {
        kind: 'inbox',
        id: requestId,
        secret: lock.protectedSecret,
        passwordSalt: lock.passwordSalt,
      })
      const uploadLink = buildLink(BASE_URL, {
        kind: 'request',
        id: requestId,
        secret: created.uploadSecret,
      })

      // The sender opens the upload link and reads the brief.
      const sent = parseLink(uploadLink).link
      if (sent.kind !== 'request') throw new Error('not an upload link')
      const uploadToken = await deriveUploadToken(sent.secret)
      const readRes = await fetch(`${server.url}/api/request/${sent.id}`, {
        headers: { 'X-Upload-Token': uploadToken },
      })
      expect(readRes.status).toBe(200)
      const request = (await readRes.json()) as FileRequestResponse
      const { brief, publicKey } = await openBrief(sent.secret, {
        ciphertext: fromBase64Url(request.brief.ciphertext),
        nonce: fromBase64Url(request.brief.nonce),
      })
      expect(brief).toEqual({ message: 'Your contracts, please', acceptsNote: true })

      const noteText = 'Both signed. The second one is a scan — sorry about the quality. ✍'
      const sources: Array<{ plain: Uint8Array; name: string; type: string; kind?: 'note' }> = [
        { plain: randomBytes(2 * MiB + 333), name: 'contract.pdf', type: 'application/pdf' },
        { plain: randomBytes(70 * KiB), name: 'scan.jpg', type: 'image/jpeg' },
        { plain: utf8(noteText), name: 'note.txt', type: 'text/plain', kind: 'note' },
      ]
      const items: Array<{ plain: Uint8Array; metadata: FileMetadata }> = sources.map(
        ({ plain, name, type, kind }) => ({
          plain,
          metadata: {
            archive: false,
            files: [{ name, type, size: plain.length }],
            ...(kind ? { kind } : {}),
          },
        }),
      )

      for (const item of items) {
        const secret = generateSecret()
        const salt = generateUploadSalt()
        const keys = await deriveUploadKeys(secret, salt)
        const cipher = await transform(item.plain, createEncryptStream(keys.fileKey))
        expect(cipher.length).toBe(encryptedSize(item.plain.length))

        const socket = await TestSocket.open(requestSocketUrl(server.url, sent.id))
        const init: RequestUploadWsInitFrame = {
          type: 'init',
          request: {
            uploadToken,
            salt: toBase64Url(salt),
            contentLength: cipher.length,
            fileCount: 1,
          },
        }
        const uploadId = await socket.init(init as unknown as Frame)
        socket.sendBytes(cipher, 256 * KiB)
        const wrap = await wrapUploadSecret(publicKey, sent.id, uploadId, secret)
        const meta = await encryptMetadata(keys.metaKey, item.metadata)
        const finalize: RequestUploadWsFinalizeFrame = {
          type: 'finalize',
          wrapEnc: toBase64Url(wrap.wrapEnc),
          wrapCiphertext: toBase64Url(wrap.wrapCiphertext),
          encryptedMeta: toBase64Url(meta.ciphertext),
          metaNonce: toBase64Url(meta.nonce),
        }
        socket.sendJson(finalize)
        expect(await socket.waitFor('done')).toEqual({ type: 'done', id: uploadId })
      }

      // The requester opens the inbox link with the password.
      const opened = parseLink(inboxLink).link
      if (opened.kind !== 'inbox' || !opened.passwordSalt) throw new Error('not a locked inbox')
      const openWith = async (candidate: Uint8Array) => {
        const access = await deriveInboxAccess(candidate)
        const inboxRes = await fetch(`${server.url}/api/inbox/${opened.id}`, {
          headers: { 'X-Inbox-Token': access.inboxToken },
        })
        if (inboxRes.status === 404) return false
        expect(inboxRes.status).toBe(200)
        return (await inboxRes.json()) as InboxResponse
      }
      const passwordLock = {
        protectedSecret: opened.secret,
        passwordSalt: opened.passwordSalt,
        passwordAlgo: PASSWORD_ALGO,
      }
      await expect(unlockSecret(passwordLock, 'wrong password', openWith)).rejects.toMatchObject({
        code: 'WRONG_PASSWORD',
      })
      const { secret: inboxSecret, result: inbox } = await unlockSecret(
        passwordLock,
        password,
        openWith,
      )
      expect(inbox.hasPassword).toBe(true)
      expect(inbox.uploads).toHaveLength(items.length)
      const vault = await openVault(
        inboxSecret,
        { ciphertext: fromBase64Url(inbox.vault), nonce: fromBase64Url(inbox.vaultNonce) },
        {
          ciphertext: fromBase64Url(inbox.brief.ciphertext),
          nonce: fromBase64Url(inbox.brief.nonce),
        },
      )
      const { inboxToken } = await deriveInboxAccess(inboxSecret)

      const received = new Map<string, { metadata: FileMetadata; plain: Uint8Array }>()
      for (const entry of inbox.uploads) {
        const secret = await unwrapUploadSecret(vault.keyPair, opened.id, entry.id, {
          wrapEnc: fromBase64Url(entry.wrapEnc),
          wrapCiphertext: fromBase64Url(entry.wrapCiphertext),
        })
        const keys = await deriveUploadKeys(secret, fromBase64Url(entry.salt))
        const metadata = await decryptMetadata(keys.metaKey, {
          ciphertext: fromBase64Url(entry.encryptedMeta),
          nonce: fromBase64Url(entry.metaNonce),
        })
        const fileRes = await fetch(`${server.url}/api/inbox/${opened.id}/file/${entry.id}`, {
          headers: { 'X-Inbox-Token': inboxToken },
        })
        expect(fileRes.status).toBe(200)
        const cipher = new Uint8Array(await fileRes.arrayBuffer())
        received.set(metadata.files[0]!.name, {
          metadata,
          plain: await transform(cipher, createDecryptStream(keys.fileKey)),
        })
      }

      for (const item of items) {
        const got = received.get(item.metadata.files[0]!.name)
        expect(got?.metadata).toEqual(item.metadata)
        expect(Buffer.from(got!.plain).equals(Buffer.from(item.plain))).toBe(true)
      }
      expect(fromUtf8(received.get('note.txt')!.plain)).toBe(noteText)
    }, 60_000)
  })
})

describe('request upload socket with the smallest FILE_UPLOAD_WS_MAX_BUFFER', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({
      env: { ...ENV, FILE_UPLOAD_WS_MAX_BUFFER: String(WS_MAX_BUFFER_MIN) },
    })
  })
  afterAll(() => server.close())

  it('refuses a frame larger than the buffer with 1009 after an error frame, and gives the slot back', async () => {
    const inbox = await createInbox(server.url, { maxUploads: 1 })
    const url = requestSocketUrl(server.url, inbox.id)
    const socket = await TestSocket.open(url)
    const id = await socket.init(initFrame(inbox.uploadToken, 4 * MiB))
    socket.ws.send(randomBytes(WS_MAX_BUFFER_MIN + 1), { binary: true })
    expect((await socket.closed).code).toBe(1009)
    expect(socket.frames).toEqual([
      { type: 'ready', id },
      { type: 'error', message: 'Receive buffer exceeded', status: 413 },
    ])
    await expectSlotBack(server.url, url, inbox)
  })
})

describe('request upload socket with file requests disabled', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ env: { ...ENV, ENABLED_SERVICES: 'file,note' } })
  })
  afterAll(() => server.close())

  it('refuses init with 403, as the HTTP route does', async () => {
    const requestId = randomUUID()
    const frame = initFrame(randomToken(), 10)
    const http = await fetch(`${server.url}/api/request/${requestId}/upload/init`, {
      method: 'POST',
      headers: initHeaders(frame),
    })
    expect(http.status).toBe(403)
    const httpBody = (await http.json()) as { error: string }
    const socket = await TestSocket.open(requestSocketUrl(server.url, requestId))
    expect(await socket.refusal(frame)).toEqual({
      type: 'error',
      message: httpBody.error,
      status: 403,
    })
  })
})

describe('request upload socket with FILE_UPLOAD_WS=false', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ env: { ...ENV, FILE_UPLOAD_WS: 'false' } })
  })
  afterAll(() => server.close())

  it('refuses the upgrade with 404 so senders fall back to chunked HTTP', async () => {
    expect(await upgradeAnswer(requestSocketUrl(server.url, randomUUID()))).toEqual({
      status: 404,
      body: { error: 'WebSocket upload is disabled' },
    })
  })
})

describe('request upload socket quota', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ env: { ...ENV, FILE_UPLOAD_QUOTA_BYTES: '1MB' } })
  })
  afterAll(() => server.close())

  it('gives the quota back at once when a client that did not ask to resume drops', async () => {
    const inbox = await createInbox(server.url)
    const url = requestSocketUrl(server.url, inbox.id)
    const remaining = async () => {
      const res = await fetch(`${server.url}/api/quota`)
      return ((await res.json()) as { remainingBytes: number }).remainingBytes
    }
    const full = await remaining()
    const first = await TestSocket.open(url)
    const firstId = await first.init(initFrame(inbox.uploadToken, full))
    first.sendBytes(randomBytes(1000))
    const { sessions } = server.service.services
    await expect.poll(() => sessions.get(firstId, anyContext)?.bytesAccepted, POLL).toBe(1000)
    expect(await remaining()).toBe(0)
    first.ws.terminate()
    await first.closed
    await expect.poll(remaining, FREED).toBe(full)
    // All of it goes to the next upload, which then ends as cleanly, leaving the quota whole.
    const next = await TestSocket.open(url)
    await next.init(initFrame(inbox.uploadToken, full))
    next.ws.close(1000)
    await expect.poll(remaining, FREED).toBe(full)
  }, 30_000)

  it("refuses an upload over the sender's remaining quota with 413, then an exhausted one with 429", async () => {
    const inbox = await createInbox(server.url)
    const url = requestSocketUrl(server.url, inbox.id)
    const over = await TestSocket.open(url)
    expect(await over.refusal(initFrame(inbox.uploadToken, MiB + 1))).toMatchObject({
      status: 413,
    })
    await uploadOver(url, inbox, randomBytes(MiB))
    const exhausted = await TestSocket.open(url)
    expect(await exhausted.refusal(initFrame(inbox.uploadToken, 1))).toMatchObject({
      status: 429,
    })
  })
})

/** A blob store whose writes wait until `open()` is called. */
function gatedBlobs(inner: BlobStore): { blobs: BlobStore; open: () => void } {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { blobs: interceptWrites(inner, () => opened), open }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Request upload sockets on a second HTTP server with a short progress window. */
async function sideSockets(
  services: Services,
  config: Config,
  progressWindowMs: number,
): Promise<{ sideServer: Server; sockets: UploadSockets; url: (id: string) => string }> {
  const sideServer = createServer((_req, res) => res.writeHead(404).end())
  await new Promise<void>((resolve) => sideServer.listen(0, '127.0.0.1', resolve))
  const ipOf = () => '127.0.0.1'
  const sockets = attachUploadSockets(sideServer, {
    config,
    uploads: services.uploads,
    logger: createLogger('silent'),
    ipOf,
    requireLogin: async () => undefined,
    routes: [requestUploadRoute({ config, requests: services.requests, ipOf })],
    progressWindowMs,
  })
  const port = (sideServer.address() as AddressInfo).port
  return { sideServer, sockets, url: (id) => requestSocketUrl(`http://127.0.0.1:${port}`, id) }
}

describe('request upload socket progress rule, with a 400 ms window', () => {
  const WINDOW = 400
  const STALLED = { type: 'error', message: ERROR_MESSAGES.uploadStalled, status: 408 }
  let server: TestServer
  let side: Awaited<ReturnType<typeof sideSockets>>

  beforeAll(async () => {
    server = await startTestServer({ env: ENV })
    // The test server's own services, so slots taken here are the ones its HTTP routes see.
    side = await sideSockets(server.service.services, server.service.config, WINDOW)
  })
  afterAll(async () => {
    await side.sockets.close()
    await new Promise((resolve) => side.sideServer.close(resolve))
    await server.close()
  })

  it('ends a socket that delivers less than 1 MiB in a window, and frees its slot', async () => {
    const inbox = await createInbox(server.url, { maxUploads: 1 })
    const socket = await TestSocket.open(side.url(inbox.id))
    const id = await socket.init(initFrame(inbox.uploadToken, 2 * MiB))
    const readyAt = performance.now()
    socket.sendBytes(randomBytes(MiB - 1))
    expect((await socket.closed).code).toBe(1008)
    expect(performance.now() - readyAt).toBeGreaterThanOrEqual(WINDOW / 2)
    expect(socket.frames).toEqual([{ type: 'ready', id }, STALLED])
    await expect.poll(() => uploadsLeft(server.url, inbox), FREED).toBe(1)
    await uploadOver(requestSocketUrl(server.url, inbox.id), inbox, randomBytes(10))
  })

  it('keeps a socket that delivers 1 MiB in every window, for longer than one window', async () => {
    const inbox = await createInbox(server.url)
    const body = randomBytes(6 * MiB + 100)
    const socket = await TestSocket.open(side.url(inbox.id))
    const id = await socket.init(initFrame(inbox.uploadToken, body.length))
    // 1 MiB every quarter window, for a window and a half: a pause of up to three quarters of a
    // window (a loaded machine's timers) still leaves 1 MiB in each. The last part carries the
    // rest, and finalize follows it at once, since the rest is due within a window of the part
    // before it.
    const parts = [...Array.from({ length: 6 }, (_, i) => i * MiB), body.length]
    for (let i = 0; i < parts.length - 1; i++) {
      if (i > 0) await sleep(WINDOW / 4)
      socket.sendBytes(body.subarray(parts[i], parts[i + 1]))
    }
    socket.sendJson(finalizeFrame())
    expect(await socket.waitFor('done')).toEqual({ type: 'done', id })
    expect((await downloadFromInbox(server.url, inbox, id)).equals(body)).toBe(true)
  })

  it('asks only for the rest when less than 1 MiB is left', async () => {
    const inbox = await createInbox(server.url)
    const body = randomBytes(MiB + 200 * KiB)
    const socket = await TestSocket.open(side.url(inbox.id))
    const id = await socket.init(initFrame(inbox.uploadToken, body.length))
    socket.sendBytes(body.subarray(0, MiB))
    await sleep(WINDOW / 2)
    socket.sendBytes(body.subarray(MiB))
    socket.sendJson(finalizeFrame())
    expect(await socket.waitFor('done')).toEqual({ type: 'done', id })
  })

  it('ends a socket that delivers less than the rest when less than 1 MiB is left', async () => {
    const inbox = await createInbox(server.url)
    const socket = await TestSocket.open(side.url(inbox.id))
    const id = await socket.init(initFrame(inbox.uploadToken, MiB + 200 * KiB))
    socket.sendBytes(randomBytes(MiB))
    await sleep(WINDOW / 2)
    socket.sendBytes(randomBytes(200 * KiB - 1))
    expect((await socket.closed).code).toBe(1008)
    expect(socket.frames).toEqual([{ type: 'ready', id }, STALLED])
  })

  it('ends a socket that sent every byte but no finalize within a window', async () => {
    const inbox = await createInbox(server.url)
    const socket = await TestSocket.open(side.url(inbox.id))
    const id = await socket.init(initFrame(inbox.uploadToken, 100))
    socket.sendBytes(randomBytes(100))
    expect((await socket.closed).code).toBe(1008)
    expect(socket.frames).toEqual([{ type: 'ready', id }, STALLED])
    expect((await readInbox(server.url, inbox)).uploads).toEqual([])
  })
})

describe('request upload socket progress rule under server backpressure', () => {
  const WINDOW = 300
  const MAX_BUFFER = 256 * KiB
  let server: TestServer
  let gate: ReturnType<typeof gatedBlobs>
  let side: Awaited<ReturnType<typeof sideSockets>>

  beforeAll(async () => {
    server = await startTestServer({ env: ENV })
    const { db, blobs } = server.service
    const config = { ...server.service.config, fileUploadWsMaxBuffer: MAX_BUFFER }
    gate = gatedBlobs(blobs)
    const services = await createServices(config, db, gate.blobs, createLogger('silent'), Date.now)
    side = await sideSockets(services, config, WINDOW)
  })
  afterAll(async () => {
    gate.open()
    await side.sockets.close()
    await new Promise((resolve) => side.sideServer.close(resolve))
    await server.close()
  })

  it('does not count the time the server kept the socket paused', async () => {
    const inbox = await createInbox(server.url)
    const body = randomBytes(2 * MiB)
    const socket = await TestSocket.open(side.url(inbox.id))
    const id = await socket.init(initFrame(inbox.uploadToken, body.length))
    socket.sendBytes(body, 16 * KiB)
    socket.sendJson(finalizeFrame())
    // The store takes nothing for several windows: the server pauses the socket, having read
    // far less than 1 MiB, and the client can deliver nothing until the store moves again.
    await sleep(4 * WINDOW)
    expect(side.sockets.peakPendingBytes).toBeGreaterThanOrEqual(MAX_BUFFER / 2)
    expect(side.sockets.peakPendingBytes).toBeLessThan(MiB)
    expect(socket.frames).toEqual([{ type: 'ready', id }])
    gate.open()
    expect(await socket.waitFor('done')).toEqual({ type: 'done', id })
    expect((await downloadFromInbox(server.url, inbox, id)).equals(body)).toBe(true)
  })
})
