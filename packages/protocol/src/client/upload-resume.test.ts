/**
 * Resuming uploads against an in-memory server that loses connections on purpose: chunked and
 * WebSocket sessions continue from what the server made durable, byte-exact, and refusals,
 * aborts and exhausted budgets end as documented (docs/api.md, "Resuming an upload").
 */
import { describe, expect, it } from 'vitest'

import { pseudoRandomBytes, sameBytes, streamOf } from '../../test/streams.js'
import { ApiClient } from './api.js'
import { resumeUpload, uploadCiphertext, type UploadCiphertextOptions } from './upload.js'
import type { UploadSession } from './upload-status.js'
import type { WebSocketLike } from './web-socket.js'

const CHUNK = 1000
const CHECKPOINT = 700
const OWNER = 'owner-token'
const HEADERS = {
  authToken: 'a',
  ownerToken: OWNER,
  salt: 's',
  maxDownloads: '1',
  expireSec: '3600',
  fileCount: '1',
  contentLength: '0',
  hasPassword: 'false' as const,
}

interface Session {
  size: number
  data: Uint8Array
  chunks: Map<number, number>
  /** Socket sessions: bytes received, and bytes durable (at checkpoints and at a drop). */
  received: number
  durable: number
  transport: 'ws' | 'chunks'
  /** Whether the init asked for it to outlive its connection; otherwise a drop ends it. */
  resumable: boolean
}

/** The server side of the contract, in memory, with the failures a test asks for. */
class FakeServer {
  readonly sessions = new Map<string, Session>()
  readonly finished = new Map<string, Uint8Array>()
  readonly log: string[] = []
  /** Chunk indexes answered 502 once (a proxy whose server restarts). */
  failChunks = new Set<number>()
  /** Socket offsets at which the connection drops, once each. */
  dropAt: number[] = []
  /** Finalize completes but its answer is lost. */
  loseFinalizeAnswer = false
  /** Every request fails to connect until then. */
  downUntil = 0
  /** Forget sessions (a server that lost them): status answers 404. */
  forget = false
  private serial = 0

  readonly fetch: typeof fetch = async (input, init) => {
    if (Date.now() < this.downUntil) throw new TypeError('fetch failed')
    const url = new URL(String(input))
    const method = init?.method ?? 'GET'
    const headers = (init?.headers ?? {}) as Record<string, string>
    const path = url.pathname
    this.log.push(`${method} ${path}`)
    const json = (status: number, body: unknown) =>
      new Response(JSON.stringify(body), {
        status,
        headers: { 'content-type': 'application/json' },
      })
    if (path === '/api/config') {
      return json(200, {
        webSocketUploadEnabled: true,
        uploadChunkSize: CHUNK,
        uploadConcurrentChunks: 2,
        uploadSpeedLimit: 0,
      })
    }
    if (path === '/api/upload/init') {
      const resumable = headers['X-Resumable'] === 'true'
      this.log.push(`init X-Resumable ${headers['X-Resumable'] ?? 'absent'}`)
      const id = this.create(Number(headers['X-Content-Length']), 'chunks', resumable)
      return json(200, { id })
    }
    const match = /^\/api\/(upload|exists)\/([^/]+)(?:\/(chunk|finalize|status))?$/.exec(path)
    if (!match) return json(404, { error: 'Not found' })
    const [, kind, id, action] = match
    if (kind === 'exists') return json(200, { exists: this.finished.has(id!) })
    const session = this.forget ? undefined : this.sessions.get(id!)
    if (!session) return json(404, { error: 'Upload not found' })
    if (method === 'DELETE') {
      this.sessions.delete(id!)
      return json(200, { deleted: true })
    }
    if (action === 'status') {
      if (headers['X-Owner-Token'] !== OWNER) return json(401, { error: 'Invalid' })
      const next = this.nextIndex(session)
      return json(200, {
        bytesWritten:
          session.transport === 'ws' ? session.durable : Math.min(next * CHUNK, session.size),
        nextIndex: session.transport === 'ws' ? null : next,
        declaredSize: session.size,
        transport: session.transport,
      })
    }
    if (action === 'chunk') {
      const index = Number(url.searchParams.get('index'))
      if (this.failChunks.delete(index)) return json(502, { error: 'Bad gateway' })
      if (session.chunks.has(index)) return json(400, { error: 'Chunk already received' })
      const body = init!.body as Uint8Array
      session.data.set(body, index * CHUNK)
      session.chunks.set(index, body.length)
      return json(200, { bytesWritten: 0 })
    }
    // finalize
    if (this.nextIndex(session) * CHUNK < session.size) return json(400, { error: 'Incomplete' })
    this.finish(id!, session)
    if (this.loseFinalizeAnswer) {
      this.loseFinalizeAnswer = false
      throw new TypeError('fetch failed')
    }
    return json(200, { id })
  }

  create(size: number, transport: Session['transport'], resumable: boolean): string {
    const id = `00000000-0000-4000-8000-${String(++this.serial).padStart(12, '0')}`
    const session = { size, data: new Uint8Array(size), chunks: new Map(), received: 0, durable: 0 }
    this.sessions.set(id, { ...session, transport, resumable })
    return id
  }

  finish(id: string, session: Session): void {
    this.sessions.delete(id)
    this.finished.set(id, session.data)
  }

  nextIndex(session: Session): number {
    let next = 0
    while (session.chunks.has(next)) next++
    return next
  }

  readonly webSocket = (): WebSocketLike => new FakeSocket(this)
}

/** A socket to FakeServer: init or resume, binary frames, finalize; drops where told. */
class FakeSocket implements WebSocketLike {
  binaryType = 'blob'
  bufferedAmount = 0
  readyState = 0
  onopen: WebSocketLike['onopen'] = null
  onmessage: WebSocketLike['onmessage'] = null
  onerror: WebSocketLike['onerror'] = null
  onclose: WebSocketLike['onclose'] = null
  private session: { id: string; state: Session } | undefined

  constructor(private readonly server: FakeServer) {
    setTimeout(() => {
      if (Date.now() < server.downUntil) return this.end(1006)
      this.readyState = 1
      this.onopen?.({})
    }, 0)
  }

  send(data: string | Uint8Array<ArrayBuffer>): void {
    if (this.readyState !== 1) return
    if (typeof data !== 'string') return this.receive(data)
    const frame = JSON.parse(data) as Record<string, unknown>
    this.server.log.push(
      `ws ${String(frame.type)}${frame.type === 'resume' ? ` ${String(frame.offset)}` : ''}`,
    )
    if (frame.type === 'init') {
      const size = Number((frame.headers as { contentLength: string }).contentLength)
      this.server.log.push(`init resumable ${String(frame.resumable)}`)
      const id = this.server.create(size, 'ws', frame.resumable === true)
      this.session = { id, state: this.server.sessions.get(id)! }
      this.answer({ type: 'ready', id })
    } else if (frame.type === 'resume') {
      const state = this.server.forget ? undefined : this.server.sessions.get(String(frame.id))
      if (!state) return this.refuse(404, 'Upload not found')
      if (frame.ownerToken !== OWNER) return this.refuse(401, 'Invalid or missing owner token')
      if (Number(frame.offset) > state.durable) return this.refuse(400, 'Invalid request')
      state.received = Number(frame.offset)
      this.session = { id: String(frame.id), state }
      this.answer({ type: 'ready', id: frame.id, offset: frame.offset })
    } else if (frame.type === 'finalize') {
      const { id, state } = this.session!
      if (state.received !== state.size) return this.refuse(400, 'Size mismatch')
      this.server.finish(id, state)
      this.answer({ type: 'done', id })
    }
  }

  private receive(bytes: Uint8Array): void {
    const state = this.session!.state
    state.data.set(bytes, state.received)
    const before = state.received
    state.received += bytes.length
    if (Math.floor(state.received / CHECKPOINT) > Math.floor(before / CHECKPOINT)) {
      state.durable = Math.floor(state.received / CHECKPOINT) * CHECKPOINT
    }
    const drop = this.server.dropAt.findIndex((at) => before < at && state.received >= at)
    if (drop >= 0) {
      this.server.dropAt.splice(drop, 1)
      this.end(1006)
    }
  }

  private answer(frame: unknown): void {
    setTimeout(() => {
      if (this.readyState === 1) this.onmessage?.({ data: JSON.stringify(frame) })
    }, 0)
  }

  private refuse(status: number, message: string): void {
    this.answer({ type: 'error', status, message })
    setTimeout(() => this.end(1008), 1)
  }

  private end(code: number): void {
    if (this.readyState === 3) return
    this.readyState = 3
    // As the server: a session its client did not ask to resume ends with its socket.
    const session = this.session
    if (
      session &&
      !session.state.resumable &&
      this.server.sessions.get(session.id) === session.state
    ) {
      this.server.sessions.delete(session.id)
    }
    setTimeout(() => this.onclose?.({ code, reason: '' }), 0)
  }

  close(code = 1000): void {
    if (this.readyState === 3) return
    this.server.log.push(`ws close ${code}`)
    this.end(code)
  }
}

function upload(
  data: Uint8Array,
  extra: Partial<UploadCiphertextOptions> = {},
): UploadCiphertextOptions {
  return {
    target: { kind: 'file', headers: { ...HEADERS, contentLength: String(data.length) } },
    size: data.length,
    ciphertext: (offset) => streamOf(data.subarray(offset), [300]),
    ...extra,
  }
}

function clients(server: FakeServer, webSocket: boolean): ApiClient {
  return new ApiClient({
    baseUrl: 'http://fake.test',
    fetch: server.fetch,
    ...(webSocket ? { webSocket: server.webSocket } : {}),
  })
}

describe('a chunked upload', () => {
  it('resumes from nextIndex after the server goes away, byte-exact', async () => {
    const server = new FakeServer()
    const data = pseudoRandomBytes(7 * CHUNK + 123, 4)
    server.failChunks = new Set([2, 5])
    const resumes: { offset: number; attempt: number }[] = []
    const sessions: UploadSession[] = []
    const result = await uploadCiphertext(
      clients(server, false),
      upload(data, {
        resume: {
          retryForMs: 60_000,
          onResume: (event) => resumes.push(event),
          onSession: (session) => void sessions.push(session),
        },
      }),
    )
    expect(result.transport).toBe('http')
    expect(sameBytes(server.finished.get(result.id)!, data)).toBe(true)
    expect(sessions).toEqual([{ id: result.id, transport: 'http', chunkSize: CHUNK }])
    expect(resumes.map((r) => r.attempt)).toEqual([1, 2])
    expect(resumes[0]!.offset).toBe(2 * CHUNK)
    expect(server.log.filter((line) => line.endsWith('/status'))).toHaveLength(2)
  })

  it('resumes after a network outage longer than the retries of one chunk', async () => {
    const server = new FakeServer()
    const data = pseudoRandomBytes(4 * CHUNK, 5)
    let calls = 0
    const fetch = server.fetch
    const api = new ApiClient({
      baseUrl: 'http://fake.test',
      fetch: async (input, init) => {
        if (String(input).includes('chunk') && ++calls === 3) server.downUntil = Date.now() + 4500
        return fetch(input, init)
      },
    })
    const result = await uploadCiphertext(api, upload(data, { resume: { retryForMs: 60_000 } }))
    expect(sameBytes(server.finished.get(result.id)!, data)).toBe(true)
  }, 20_000)

  it('counts its time budget from the last byte that got through, not from the first loss', async () => {
    const server = new FakeServer()
    const data = pseudoRandomBytes(30 * CHUNK, 14)
    server.failChunks = new Set([2, 28])
    const fetch = server.fetch
    const api = new ApiClient({
      baseUrl: 'http://fake.test',
      fetch: async (input, init) => {
        // A slow link: the second loss comes well after the budget of the first has passed.
        if (String(input).includes('chunk')) await new Promise((r) => setTimeout(r, 100))
        return fetch(input, init)
      },
    })
    const result = await uploadCiphertext(api, upload(data, { resume: { retryForMs: 1000 } }))
    expect(sameBytes(server.finished.get(result.id)!, data)).toBe(true)
  })

  it('asks the server to keep the session only when it resumes', async () => {
    const data = pseudoRandomBytes(2 * CHUNK, 15)
    const asked = new FakeServer()
    await uploadCiphertext(clients(asked, false), upload(data, { resume: { retryForMs: 1000 } }))
    const plain = new FakeServer()
    await uploadCiphertext(clients(plain, false), upload(data))
    const inits = (server: FakeServer) => server.log.filter((line) => line.startsWith('init'))
    expect(inits(asked)).toEqual(['init X-Resumable true'])
    expect(inits(plain)).toEqual(['init X-Resumable absent'])
  })

  it('is cancelled on a refusal and on a lost connection when resuming is off', async () => {
    const server = new FakeServer()
    server.failChunks = new Set([1])
    const data = pseudoRandomBytes(3 * CHUNK, 6)
    await expect(uploadCiphertext(clients(server, false), upload(data))).rejects.toThrow(
      'Bad gateway',
    )
    expect(server.log).toContain(`DELETE /api/upload/00000000-0000-4000-8000-000000000001`)
    expect(server.sessions.size).toBe(0)
  })

  it('counts as done when the finalize answer was lost but the upload exists', async () => {
    const server = new FakeServer()
    server.loseFinalizeAnswer = true
    const data = pseudoRandomBytes(2 * CHUNK, 7)
    const result = await uploadCiphertext(
      clients(server, false),
      upload(data, { resume: { retryForMs: 60_000 } }),
    )
    expect(sameBytes(server.finished.get(result.id)!, data)).toBe(true)
    expect(server.log).toContain(`GET /api/exists/${result.id}`)
  })

  it('says clearly when the server no longer has the session', async () => {
    const server = new FakeServer()
    const data = pseudoRandomBytes(3 * CHUNK, 8)
    const id = server.create(data.length, 'chunks', true)
    server.forget = true
    const session: UploadSession = { id, transport: 'http', chunkSize: CHUNK }
    await expect(resumeUpload(clients(server, false), session, upload(data))).rejects.toThrow(
      /no longer has this unfinished upload/,
    )
    expect(server.log).toContain(`GET /api/exists/${id}`)
  })

  it('gives up after its time budget and leaves the session to resume later', async () => {
    const server = new FakeServer()
    const data = pseudoRandomBytes(3 * CHUNK, 9)
    const sessions: UploadSession[] = []
    const api = clients(server, false)
    const options = upload(data, {
      resume: {
        retryForMs: 1,
        onSession: (session) => {
          sessions.push(session)
          server.downUntil = Date.now() + 60_000
        },
      },
    })
    await expect(uploadCiphertext(api, options)).rejects.toThrow(/Could not reach the server/)
    expect(server.sessions.has(sessions[0]!.id)).toBe(true)
    // Later, in another run, with the server back: the same session completes.
    server.downUntil = 0
    const result = await resumeUpload(api, sessions[0]!, upload(data))
    expect(sameBytes(server.finished.get(result.id)!, data)).toBe(true)
  }, 30_000)
})

describe('a WebSocket upload', () => {
  it('resumes over new sockets from the durable offset, byte-exact', async () => {
    const server = new FakeServer()
    const data = pseudoRandomBytes(10 * CHECKPOINT + 55, 10)
    server.dropAt = [2 * CHECKPOINT + 100, 5 * CHECKPOINT + 10, 9 * CHECKPOINT]
    const resumes: { offset: number; attempt: number }[] = []
    const events: string[] = []
    const result = await uploadCiphertext(
      clients(server, true),
      upload(data, {
        resume: {
          retryForMs: 60_000,
          onConnectionLost: () => events.push('lost'),
          onResume: (event) => {
            resumes.push(event)
            events.push(`resumed ${event.attempt}`)
          },
        },
      }),
    )
    expect(result.transport).toBe('websocket')
    // Each loss is told at once, before the wait and the status request of its resume.
    expect(events).toEqual(['lost', 'resumed 1', 'lost', 'resumed 2', 'lost', 'resumed 3'])
    expect(sameBytes(server.finished.get(result.id)!, data)).toBe(true)
    expect(resumes).toEqual([
      { offset: 2 * CHECKPOINT, attempt: 1 },
      { offset: 5 * CHECKPOINT, attempt: 2 },
      { offset: 9 * CHECKPOINT, attempt: 3 },
    ])
    expect(server.log.filter((line) => line.startsWith('ws resume'))).toEqual([
      `ws resume ${2 * CHECKPOINT}`,
      `ws resume ${5 * CHECKPOINT}`,
      `ws resume ${9 * CHECKPOINT}`,
    ])
  })

  it('fails at the first drop when resuming is off, as before', async () => {
    const server = new FakeServer()
    server.dropAt = [CHECKPOINT]
    const data = pseudoRandomBytes(3 * CHECKPOINT, 11)
    await expect(uploadCiphertext(clients(server, true), upload(data))).rejects.toThrow(
      /connection closed \(1006\)/,
    )
  })

  it('asks the server to keep the session only when it resumes', async () => {
    const asked = new FakeServer()
    const data = pseudoRandomBytes(CHECKPOINT, 14)
    await uploadCiphertext(clients(asked, true), upload(data, { resume: { retryForMs: 1000 } }))
    const kept = new FakeServer()
    const keep = { retryForMs: 0, keepOnAbort: true }
    await uploadCiphertext(clients(kept, true), upload(data, { resume: keep }))
    const plain = new FakeServer()
    await uploadCiphertext(clients(plain, true), upload(data))
    const off = new FakeServer()
    await uploadCiphertext(clients(off, true), upload(data, { resume: { retryForMs: 0 } }))
    const inits = (server: FakeServer) => server.log.filter((line) => line.startsWith('init'))
    expect(inits(asked)).toEqual(['init resumable true'])
    expect(inits(kept)).toEqual(['init resumable true'])
    expect(inits(plain)).toEqual(['init resumable undefined'])
    expect(inits(off)).toEqual(['init resumable undefined'])
  })

  it('leaves the session resumable on an abort when asked to keep it', async () => {
    const server = new FakeServer()
    const data = pseudoRandomBytes(3 * CHECKPOINT, 12)
    const controller = new AbortController()
    let session: UploadSession | undefined
    const options = upload(data, {
      signal: controller.signal,
      resume: {
        retryForMs: 60_000,
        keepOnAbort: true,
        onSession: (named) => {
          session = named
          controller.abort(new Error('interrupted'))
        },
      },
    })
    await expect(uploadCiphertext(clients(server, true), options)).rejects.toThrow('interrupted')
    expect(server.log).toContain('ws close 4000')
    expect(server.sessions.has(session!.id)).toBe(true)
  })

  it('does not resume a refusal', async () => {
    const server = new FakeServer()
    server.dropAt = [CHECKPOINT]
    const data = pseudoRandomBytes(2 * CHECKPOINT, 13)
    const api = clients(server, true)
    const options = upload(data, {
      resume: { retryForMs: 60_000, onSession: () => void (server.forget = true) },
    })
    await expect(uploadCiphertext(api, options)).rejects.toThrow(/no longer has/)
  })
})
