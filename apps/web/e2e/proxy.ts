/**
 * A reverse proxy in front of the server that records what passes and can refuse WebSocket
 * upgrades, as some corporate proxies do. The web app uploads from a Web Worker, whose sockets
 * playwright cannot intercept, so the proxy is where a test sees and blocks the transport.
 */
import { createServer, request as httpRequest, Agent, type IncomingMessage } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { Transform } from 'node:stream'

export interface RecordingProxy {
  url: string
  /** Paths of the WebSocket upgrades asked for, refused ones included. */
  readonly upgrades: string[]
  /** `METHOD path` of every HTTP request passed on. */
  readonly requests: string[]
  /** Every answer passed on: its request, status and the body bytes passed to the client. */
  readonly answers: ProxiedAnswer[]
  /** Body bytes of all the answers passed on to the client so far. */
  readonly answerBytes: number
  /** When true, every WebSocket upgrade is answered 403 and the socket closed. */
  blockWebSockets: boolean
  /**
   * Holds back the server's answers to the requests whose `METHOD path` matches, until
   * `releaseAnswers()`: the request itself still reaches the server whole.
   */
  holdAnswers(match: RegExp): void
  /** Passes on every held answer and stops holding. */
  releaseAnswers(): void
  close(): Promise<void>
}

export interface ProxiedAnswer {
  request: string
  status: number
  bytes: number
}

export async function startProxy(target: string, port = 0): Promise<RecordingProxy> {
  const upstream = new URL(target)
  const agent = new Agent({ keepAlive: true })
  const sockets = new Set<Socket>()
  const state = {
    upgrades: [] as string[],
    requests: [] as string[],
    answers: [] as ProxiedAnswer[],
    blockWebSockets: false,
  }
  let hold: RegExp | undefined
  let held: (() => void)[] = []

  const server = createServer((req, res) => {
    const line = `${req.method} ${req.url}`
    state.requests.push(line)
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent,
      },
      (answer) => {
        const passOn = () => {
          const record: ProxiedAnswer = {
            request: line,
            status: answer.statusCode ?? 502,
            bytes: 0,
          }
          state.answers.push(record)
          // Counted as the client takes them: a client that stops reading stops the count.
          const counter = new Transform({
            transform(chunk: Buffer, _encoding, done) {
              record.bytes += chunk.length
              done(null, chunk)
            },
          })
          res.writeHead(record.status, answer.rawHeaders)
          // An answer cut upstream is cut for the client too, rather than left open forever.
          answer.on('aborted', () => res.destroy())
          answer.on('error', () => res.destroy())
          answer.pipe(counter).pipe(res)
        }
        if (hold?.test(line)) held.push(passOn)
        else passOn()
      },
    )
    forward.on('error', () => res.destroy())
    // A client that goes away takes its request to the server with it.
    res.on('close', () => {
      if (!res.writableFinished) forward.destroy()
    })
    req.pipe(forward)
  })

  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })

  server.on('upgrade', (req: IncomingMessage, client: Socket, head: Buffer) => {
    state.upgrades.push(req.url ?? '')
    if (state.blockWebSockets) {
      client.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      return
    }
    const server = connect(Number(upstream.port), upstream.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`]
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`)
      }
      server.write(`${lines.join('\r\n')}\r\n\r\n`)
      if (head.length > 0) server.write(head)
      server.pipe(client)
      client.pipe(server)
    })
    sockets.add(server)
    server.on('close', () => sockets.delete(server))
    server.on('error', () => client.destroy())
    client.on('error', () => server.destroy())
  })

  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const { port: bound } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${bound}`,
    get upgrades() {
      return state.upgrades
    },
    get requests() {
      return state.requests
    },
    get answers() {
      return state.answers
    },
    get answerBytes() {
      return state.answers.reduce((sum, answer) => sum + answer.bytes, 0)
    },
    get blockWebSockets() {
      return state.blockWebSockets
    },
    set blockWebSockets(value: boolean) {
      state.blockWebSockets = value
    },
    holdAnswers(match: RegExp) {
      hold = match
    },
    releaseAnswers() {
      hold = undefined
      const waiting = held
      held = []
      for (const passOn of waiting) passOn()
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      agent.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
