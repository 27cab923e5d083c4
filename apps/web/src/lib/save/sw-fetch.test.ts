/**
 * The answer `public/sw.js` gives for a download's one-time address: the script runs in a sandbox
 * whose `self` keeps its listeners, is handed a download, and is asked for it.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import vm from 'node:vm'

import { describe, expect, it } from 'vitest'

const SW_PATH = fileURLToPath(new URL('../../../public/sw.js', import.meta.url))
const ORIGIN = 'https://fileshare.test'

type Listener = (event: unknown) => void

function loadServiceWorker(): Map<string, Listener> {
  const listeners = new Map<string, Listener>()
  const context = vm.createContext({
    self: {
      addEventListener: (type: string, listener: Listener) => listeners.set(type, listener),
      skipWaiting: () => undefined,
      clients: { claim: () => Promise.resolve() },
      location: { origin: ORIGIN },
    },
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
