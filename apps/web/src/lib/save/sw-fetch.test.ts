/**
 * The answers `public/sw.js` gives for a download's one-time address and for a stream's range
 * requests: the script runs in a sandbox whose `self` keeps its listeners, is handed a download
 * (or has a page that answers ranges), and is asked for it.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import vm from 'node:vm'

import { describe, expect, it } from 'vitest'

const SW_PATH = fileURLToPath(new URL('../../../public/sw.js', import.meta.url))
const ORIGIN = 'https://fileshare.test'

type Listener = (event: unknown) => void

/** A window client of the service worker: it hears what the worker posts to it. */
interface FakeClient {
  postMessage(message: unknown, transfer: MessagePort[]): void
}

function loadServiceWorker(clients: Record<string, FakeClient> = {}): Map<string, Listener> {
  const listeners = new Map<string, Listener>()
  const context = vm.createContext({
    self: {
      addEventListener: (type: string, listener: Listener) => listeners.set(type, listener),
      skipWaiting: () => undefined,
      clients: {
        claim: () => Promise.resolve(),
        get: (id: string) => Promise.resolve(clients[id]),
      },
      location: { origin: ORIGIN },
    },
    MessageChannel,
    clearTimeout,
    ReadableStream,
    MessagePort,
    Response,
    Headers,
    URL,
    setTimeout: () => 0,
    String,
    Number,
    encodeURIComponent,
  })
  vm.runInContext(readFileSync(SW_PATH, 'utf8'), context, { filename: SW_PATH })
  return listeners
}

/** Hands the worker a download announced with `contentType`, then fetches its address. */
async function served(name: string, contentType: string): Promise<Response> {
  const listeners = loadServiceWorker()
  const id = crypto.randomUUID()
  const stream = new ReadableStream<Uint8Array>({
    start: (controller) => {
      controller.enqueue(new TextEncoder().encode('<script>alert(1)</script>'))
      controller.close()
    },
  })
  listeners.get('message')!({
    data: { type: 'fileshare-download', id, name, size: 25, contentType, stream },
    ports: [],
  })
  let answer: Response | Promise<Response> | undefined
  listeners.get('fetch')!({
    request: { url: `${ORIGIN}/__fileshare/download/${id}` },
    respondWith: (response: Response | Promise<Response>) => (answer = response),
  })
  expect(answer).toBeDefined()
  return answer!
}

describe('the service worker download answer', () => {
  // Security: a sender's file never renders as a page of this origin, whatever type it claims.
  it('is application/octet-stream, an attachment and nosniff, whatever the file type', async () => {
    for (const type of ['text/html', 'image/svg+xml', 'application/xhtml+xml', '']) {
      const response = await served('page.html', type)
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe('application/octet-stream')
      expect(response.headers.get('content-disposition')).toBe(
        `attachment; filename="page.html"; filename*=UTF-8''page.html`,
      )
      expect(response.headers.get('x-content-type-options')).toBe('nosniff')
      expect(response.headers.get('content-length')).toBe('25')
      expect(await response.text()).toBe('<script>alert(1)</script>')
    }
  })

  it('keeps a name with quotes and non-ASCII letters in both forms', async () => {
    const response = await served('Über "x".txt', 'text/plain')
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="_ber _x_.txt"; filename*=UTF-8''%C3%9Cber%20%22x%22.txt`,
    )
  })
})

/**
 * Asks the worker for `/__fileshare/stream/<id>` with `range` from client `from`, where the page
 * `page` (client id `page-1`) answers with `head` and, for a body, sends `body` on the port.
 */
async function streamed(
  from: string,
  range: string | null,
  head: Record<string, unknown>,
  body = '',
): Promise<{ response: Response; asked: unknown[] }> {
  const asked: unknown[] = []
  const page: FakeClient = {
    postMessage: (message, ports) => {
      asked.push(message)
      const [reply, data] = ports
      reply!.postMessage(head)
      data!.onmessage = (event: MessageEvent<{ type: string }>) => {
        if (event.data.type !== 'pull') return
        if (body) data!.postMessage({ type: 'chunk', chunk: new TextEncoder().encode(body) })
        body = ''
        data!.postMessage({ type: 'done' })
      }
    },
  }
  const listeners = loadServiceWorker({ 'page-1': page })
  let answer: Promise<Response> | undefined
  listeners.get('fetch')!({
    clientId: from,
    request: {
      url: `${ORIGIN}/__fileshare/stream/stream-1`,
      headers: new Headers(range === null ? {} : { Range: range }),
    },
    respondWith: (response: Promise<Response>) => (answer = response),
  })
  expect(answer).toBeDefined()
  return { response: await answer!, asked }
}

describe('the service worker stream answer', () => {
  it("relays the page's 206 head and the plaintext of the range", async () => {
    const headers = {
      'Content-Type': 'video/webm',
      'Content-Length': '5',
      'Content-Range': 'bytes 10-14/100',
      'Accept-Ranges': 'bytes',
    }
    const { response, asked } = await streamed(
      'page-1',
      'bytes=10-14',
      { type: 'fileshare-head', status: 206, headers, body: true },
      'hello',
    )
    expect(asked).toEqual([{ type: 'fileshare-range', id: 'stream-1', range: 'bytes=10-14' }])
    expect(response.status).toBe(206)
    expect(response.headers.get('content-range')).toBe('bytes 10-14/100')
    expect(response.headers.get('content-type')).toBe('video/webm')
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await response.text()).toBe('hello')
  })

  // Security: a stream is never served as a type a browser would render as a page of this origin.
  it('serves any type but audio and video as application/octet-stream, nosniff', async () => {
    for (const type of ['text/html', 'image/svg+xml', 'video/webm<script>']) {
      const head = { type: 'fileshare-head', status: 200, headers: { 'Content-Type': type } }
      const { response } = await streamed('page-1', null, { ...head, body: true }, 'x')
      expect(response.headers.get('content-type')).toBe('application/octet-stream')
      expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    }
  })

  it('answers 416 without a body, and 404 to a request from a page that has no such stream', async () => {
    const refused = { 'Content-Type': 'video/webm', 'Content-Range': 'bytes */100' }
    const head = { type: 'fileshare-head', status: 416, headers: refused, body: false }
    const { response } = await streamed('page-1', 'bytes=100-', head)
    expect(response.status).toBe(416)
    expect(response.headers.get('content-range')).toBe('bytes */100')
    const elsewhere = await streamed('another-tab', 'bytes=0-', head)
    expect(elsewhere.response.status).toBe(404)
    expect(elsewhere.asked).toEqual([])
  })
})
