/**
 * The server side of the resume contract (docs/api.md, "Resuming an upload"), in memory, for the
 * protocol's resume tests: chunked and WebSocket sessions, with the failures a test asks for. It
 * also remembers every ciphertext byte it was ever sent at each offset, so that a test can tell
 * whether one offset was sent two different bytes (one nonce over two plaintexts).
 */
import { ApiClient } from '../src/client/api.js'
import type { WebSocketLike } from '../src/client/web-socket.js'
import type { Declaration } from '../src/wire/declaration.js'

export const CHUNK = 1000
export const CHECKPOINT = 700
export const OWNER = 'owner-token'

/** The `init` settings of an upload of `size` ciphertext bytes owned with OWNER. */
export function uploadDeclaration(size: number): Declaration {
  return {
    authToken: 'a',
    ownerToken: OWNER,
    salt: 's',
    maxDownloads: 1,
    expireSec: 3600,
    fileCount: 1,
    size,
    password: null,
  }
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
  /** The owner token the upload began with, its credential for a status, a resume or a cancel. */
  ownerToken: string
  /** Every byte ever received at each offset, and whether one was. */
  seen: Uint8Array
  had: Uint8Array
}

export class FakeServer {
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
  /** The next status answer drops what the session holds and asks for everything again. */
  rewind = false
  /** Offsets that were sent a byte other than the one they were sent before. */
  conflicts = 0
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
      this.log.push(`init X-Resumable ${headers['X-Resumable'] ?? 'absent'}`)
      const id = this.create(
        Number(headers['X-Content-Length']),
        'chunks',
        headers['X-Owner-Token'],
        headers['X-Resumable'] === 'true',
      )
      return json(200, { id })
    }
    const match = /^\/api\/(upload|exists|meta|info)\/([^/]+)(?:\/(chunk|finalize|status))?$/.exec(
      path,
    )
    if (!match) return json(404, { error: 'Not found' })
    const [, kind, id, action] = match
    if (kind === 'exists') return json(200, { exists: this.finished.has(id!) })
    // What a file upload asks once its bytes are in: its metadata is stored, its info read.
    if (kind === 'meta') return json(200, {})
    if (kind === 'info') {
      return json(200, { id, expiresAt: '2030-01-01T00:00:00.000Z', maxDownloads: 1 })
    }
    const session = this.forget ? undefined : this.sessions.get(id!)
    if (!session) return json(404, { error: 'Upload not found' })
    if (method === 'DELETE') {
      this.sessions.delete(id!)
      return json(200, { deleted: true })
    }
    if (action === 'status') {
      if (headers['X-Owner-Token'] !== session.ownerToken) return json(401, { error: 'Invalid' })
      if (this.rewind) {
        this.rewind = false
        session.chunks.clear()
        session.durable = 0
      }
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
      this.receive(session, index * CHUNK, body)
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

  create(
    size: number,
    transport: Session['transport'],
    ownerToken = OWNER,
    resumable = true,
  ): string {
    const id = `00000000-0000-4000-8000-${String(++this.serial).padStart(12, '0')}`
    this.sessions.set(id, {
      size,
      data: new Uint8Array(size),
      chunks: new Map(),
      received: 0,
      durable: 0,
      transport,
      resumable,
      ownerToken,
      seen: new Uint8Array(size),
      had: new Uint8Array(size),
    })
    return id
  }

  /** Stores `bytes` at `offset`, counting each offset sent another byte than before. */
  receive(session: Session, offset: number, bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) {
      const at = offset + i
      if (session.had[at] === 1 && session.seen[at] !== bytes[i]) this.conflicts++
      session.had[at] = 1
      session.seen[at] = bytes[i]!
    }
    session.data.set(bytes, offset)
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

  /** A client of this server, over chunks only or with its WebSocket too. */
  client(webSocket: boolean): ApiClient {
    return new ApiClient({
      baseUrl: 'http://fake.test',
      fetch: this.fetch,
      ...(webSocket ? { webSocket: this.webSocket } : {}),
    })
  }
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
      const headers = frame.headers as { contentLength: string; ownerToken: string }
      this.server.log.push(`init resumable ${String(frame.resumable)}`)
      const id = this.server.create(
        Number(headers.contentLength),
        'ws',
        headers.ownerToken,
        frame.resumable === true,
      )
      this.session = { id, state: this.server.sessions.get(id)! }
      this.answer({ type: 'ready', id })
    } else if (frame.type === 'resume') {
      const state = this.server.forget ? undefined : this.server.sessions.get(String(frame.id))
      if (!state) return this.refuse(404, 'Upload not found')
      if (frame.ownerToken !== state.ownerToken)
        return this.refuse(401, 'Invalid or missing owner token')
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
    this.server.receive(state, state.received, bytes)
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
