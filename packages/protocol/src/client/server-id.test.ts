/**
 * Every id a server assigns is checked before a client uses it: a fake server on a real socket
 * answers ids that are not UUIDs and the client functions refuse them, sending nothing more.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'

import { generateSecret } from '../crypto/keys.js'
import { buildLink, parseLink, type FileLink, type InboxLink } from '../crypto/link.js'
import { createRequest } from '../crypto/request.js'
import { ApiClient } from './api.js'
import { inspectFile, sendFile } from './files.js'
import { openInbox } from './inbox.js'
import { createNote, inspectNote } from './notes.js'
import { createFileRequest } from './requests.js'
import { bytesSource } from './source.js'
import type { WebSocketLike } from './web-socket.js'

const BAD_ID = '../../x'
const ID = '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b'
const OTHER_ID = '6f1d7f4c-8a3e-4c5b-9d2f-0e1a2b3c4d5e'

type Answer = (request: IncomingMessage) => unknown
let answers: Map<string, Answer>
let seen: string[]
let server: Server
let baseUrl: string

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume()
    request.on('end', () => {
      const key = `${request.method} ${request.url?.split('?')[0]}`
      seen.push(key)
      const answer = answers.get(key)
      response.writeHead(answer ? 200 : 404, { 'Content-Type': 'application/json' })
      response.end(JSON.stringify(answer ? answer(request) : { error: 'Not found' }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`
})

afterAll(() => new Promise((resolve) => server.close(resolve)))

beforeEach(() => {
  seen = []
  answers = new Map([
    [
      'GET /api/config',
      () => ({
        webSocketUploadEnabled: false,
        uploadChunkSize: 1024 * 1024,
        uploadConcurrentChunks: 2,
        uploadSpeedLimit: 0,
      }),
    ],
  ])
})

const SEND = {
  expireSec: 3600,
  maxDownloads: 1,
  fileCount: 1,
  metadata: { archive: false, files: [{ name: 'a.txt', type: 'text/plain', size: 3 }] },
}

function fileLink(id: string): FileLink {
  const link = parseLink(
    buildLink(baseUrl, { kind: 'file', id, secret: generateSecret(), hasPassword: false }),
  ).link
  return link as FileLink
}

describe('ids the server assigns', () => {
  it('an upload id from the chunked init that is not a UUID fails the upload; no chunk is sent', async () => {
    answers.set('POST /api/upload/init', () => ({ id: BAD_ID }))
    const api = new ApiClient({ baseUrl })
    await expect(sendFile(api, bytesSource(new Uint8Array(3)), SEND)).rejects.toMatchObject({
      code: 'NETWORK',
      message: 'The server answered with an invalid upload id',
    })
    expect(seen).toEqual(['GET /api/config', 'POST /api/upload/init'])
  })

  it(
    'a WebSocket `ready` whose id is not a UUID fails the upload without a fallback',
    { timeout: 10_000 },
    async () => {
      answers.set('GET /api/config', () => ({ webSocketUploadEnabled: true, uploadSpeedLimit: 0 }))
      const sent: unknown[] = []
      const socket: WebSocketLike = {
        binaryType: 'blob',
        bufferedAmount: 0,
        readyState: 1,
        send(data) {
          sent.push(data)
          if (typeof data === 'string' && JSON.parse(data).type === 'init') {
            setTimeout(() =>
              socket.onmessage?.({ data: JSON.stringify({ type: 'ready', id: BAD_ID }) }),
            )
          }
        },
        close() {
          socket.onclose?.({ code: 1000, reason: '' })
        },
        onopen: null,
        onmessage: null,
        onerror: null,
        onclose: null,
      }
      const api = new ApiClient({
        baseUrl,
        webSocket: () => {
          setTimeout(() => socket.onopen?.({}))
          return socket
        },
      })
      await expect(sendFile(api, bytesSource(new Uint8Array(3)), SEND)).rejects.toThrow(
        'The server answered with an invalid upload id',
      )
      expect(sent).toHaveLength(1)
      expect(seen).toEqual(['GET /api/config'])
    },
  )

  it('a note id that is not a UUID fails the creation', async () => {
    answers.set('POST /api/note', () => ({ id: BAD_ID, expiresAt: new Date().toISOString() }))
    const api = new ApiClient({ baseUrl })
    await expect(
      createNote(api, { text: 'hi', contentType: 'text', maxViews: 1, expireSec: 3600 }),
    ).rejects.toThrow('The server answered with an invalid note id')
  })

  it('a request id that is not a UUID fails the creation', async () => {
    answers.set('POST /api/request', () => ({ id: BAD_ID, closesAt: new Date().toISOString() }))
    const api = new ApiClient({ baseUrl })
    await expect(
      createFileRequest(api, {
        message: 'send it',
        expireSec: 3600,
        maxUploads: 1,
        maxSize: 1024,
        downloads: 1,
      }),
    ).rejects.toThrow('The server answered with an invalid request id')
  })

  it('an inbox entry whose id is not a UUID fails opening the inbox', async () => {
    const created = await createRequest({ message: 'send it', acceptsNote: false })
    const now = new Date().toISOString()
    const entry = {
      id: BAD_ID,
      size: 100,
      fileCount: 1,
      salt: 'A'.repeat(43),
      wrapEnc: 'A'.repeat(87),
      wrapCiphertext: 'A'.repeat(64),
      encryptedMeta: 'A'.repeat(40),
      metaNonce: 'A'.repeat(16),
      downloadCount: 0,
      maxDownloads: 1,
      expiresAt: now,
      createdAt: now,
    }
    answers.set(`GET /api/inbox/${ID}`, () => ({
      vault: created.fields.vault,
      vaultNonce: created.fields.vaultNonce,
      brief: created.fields.brief,
      hasPassword: false,
      open: true,
      closesAt: now,
      createdAt: now,
      maxUploads: 1,
      maxSize: 1024,
      usedUploads: 1,
      usedBytes: 100,
      uploads: [entry],
    }))
    const link = parseLink(
      buildLink(baseUrl, { kind: 'inbox', id: ID, secret: created.inboxSecret }),
    )
    const api = new ApiClient({ baseUrl })
    await expect(openInbox(api, link.link as InboxLink)).rejects.toThrow(
      'The server answered with an invalid inbox entry id',
    )
  })

  it('public info that names another item than the one asked for is refused', async () => {
    answers.set(`GET /api/info/${ID}`, () => ({ id: OTHER_ID, size: 100, salt: 'A' }))
    answers.set(`GET /api/note/${ID}`, () => ({ id: BAD_ID, salt: 'A' }))
    const api = new ApiClient({ baseUrl })
    await expect(inspectFile(api, fileLink(ID))).rejects.toThrow(
      'The server answered with an invalid upload id',
    )
    await expect(inspectNote(api, fileLink(ID))).rejects.toThrow(
      'The server answered with an invalid note id',
    )
  })
})
