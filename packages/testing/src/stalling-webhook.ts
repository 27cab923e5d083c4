/**
 * A webhook receiver that never answers: it takes each connection and, once the request arrives,
 * writes an interim `HTTP/1.1 102 Processing` every `intervalMs` and never a final status, as a
 * slow or hostile receiver may, so the connection never falls idle. It records when connections
 * open and close; it owns its server and nothing else.
 */
import { EventEmitter, once } from 'node:events'
import { createServer, type AddressInfo, type Socket } from 'node:net'

export interface StallingWebhook {
  url: string
  /** When each connection opened, in `Date.now()` milliseconds. */
  opened: number[]
  /** How long each ended connection lasted, in milliseconds, in the order they ended. */
  closed: number[]
  /** Resolves once `count` connections have opened and `closed` of them have ended. */
  reach(count: { opened?: number; closed?: number }): Promise<void>
  close(): Promise<void>
}

export async function startStallingWebhook(intervalMs = 1000): Promise<StallingWebhook> {
  const changes = new EventEmitter()
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    const openedAt = Date.now()
    sockets.add(socket)
    hook.opened.push(openedAt)
    let ticker: NodeJS.Timeout | undefined
    socket.once('data', () => {
      const interim = () => socket.write('HTTP/1.1 102 Processing\r\n\r\n')
      interim()
      ticker = setInterval(interim, intervalMs)
    })
    socket.on('error', () => undefined)
    socket.on('close', () => {
      clearInterval(ticker)
      sockets.delete(socket)
      hook.closed.push(Date.now() - openedAt)
      changes.emit('change')
    })
    changes.emit('change')
  })
  const hook: StallingWebhook = {
    url: '',
    opened: [],
    closed: [],
    async reach({ opened = 0, closed = 0 }) {
      while (hook.opened.length < opened || hook.closed.length < closed) {
        await once(changes, 'change')
      }
    },
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  hook.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  return hook
}
