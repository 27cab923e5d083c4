/**
 * A small node:http server that answers as a test tells it, for the suites that need a server
 * misbehaving (ids that are not UUIDs, redirects elsewhere); it records every request it saw.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'

export interface SeenRequest {
  method: string
  url: string
  headers: IncomingMessage['headers']
}

export type FakeHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  body: Buffer,
) => void | Promise<void>

export interface FakeServer {
  /** `http://127.0.0.1:<port>`. */
  url: string
  port: number
  seen: SeenRequest[]
  close(): Promise<void>
}

export async function startFakeServer(handler: FakeHandler): Promise<FakeServer> {
  const seen: SeenRequest[] = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers })
      Promise.resolve(handler(request, response, Buffer.concat(chunks))).catch((error: unknown) => {
        response.writeHead(500).end(String(error))
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Answers `value` as JSON with `status`. */
export function sendJson(response: ServerResponse, value: unknown, status = 200): void {
  response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(value))
}
