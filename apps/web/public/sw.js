/**
 * Download service worker: turns a download's plaintext, arriving from the transfer worker on a
 * port the page hands over, into an ordinary browser download, so files of any size go straight
 * to disk; and answers a media element's range requests for a stream the page opened, by asking
 * that page for the range (it decrypts only the records the range touches) and relaying the
 * plaintext. It holds no key and keeps no state about a stream. It answers only its own addresses
 * (/__fileshare/download/<id>, /__fileshare/stream/<id>) and lets every other request pass
 * untouched.
 */

const PREFIX = '/__fileshare/download/'
const STREAM_PREFIX = '/__fileshare/stream/'
/** How long the page may take to answer a range request before it counts as gone. */
const RANGE_ANSWER_MS = 10_000
/** The only types a stream is served as; anything else is bytes, never a document. */
const MEDIA_TYPE = /^(audio|video)\/[\w.+-]+$/
/** Streams handed over but not yet fetched are dropped after this long. */
const UNCLAIMED_MS = 60_000

/** @type {Map<string, { stream: ReadableStream<Uint8Array>, name: string, size: number, port: MessagePort | undefined }>} */
const downloads = new Map()

self.addEventListener('install', () => {
  self.skipWaiting()
})

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim())
})

/**
 * Chunks asked for ahead of the browser's reading (PORT_WINDOW in src/lib/worker/streams.ts):
 * the writer need not wait a round trip for the next request, and at most this many wait here.
 */
const PORT_WINDOW = 4

/**
 * The stream served on a MessagePort by the transfer worker (`streamToPort` in
 * src/lib/worker/streams.ts): each chunk arrives by transfer; one more is asked for as the browser
 * takes one.
 */
function portToStream(port) {
  const arrived = []
  let waiting = null
  port.onmessage = (event) => {
    arrived.push(event.data)
    const wake = waiting
    waiting = null
    if (wake) wake()
  }
  return new ReadableStream(
    {
      start() {
        for (let n = 0; n < PORT_WINDOW; n++) port.postMessage({ type: 'pull' })
      },
      async pull(controller) {
        if (arrived.length === 0) await new Promise((resolve) => (waiting = resolve))
        const message = arrived.shift()
        if (message.type === 'chunk') {
          controller.enqueue(message.chunk)
          port.postMessage({ type: 'pull' })
        } else if (message.type === 'done') {
          port.close()
          controller.close()
        } else {
          port.close()
          controller.error(new Error(message.error?.message ?? 'Download failed'))
        }
      },
      cancel(reason) {
        port.postMessage({ type: 'cancel', reason: String(reason) })
        port.close()
      },
    },
    { highWaterMark: 0 },
  )
}

self.addEventListener('message', (event) => {
  const data = event.data
  if (!data || typeof data !== 'object') return
  if (data.type === 'fileshare-ping') return
  if (data.type === 'fileshare-claim') {
    // A page loaded past this worker (a forced reload) asks to be controlled for its streams.
    event.waitUntil(self.clients.claim())
    return
  }
  if (data.type !== 'fileshare-download' || typeof data.id !== 'string') return
  // The plaintext arrives on the port the page handed over (save/service-worker.ts). A page
  // loaded before this version, still open when this worker took over, hands the stream itself.
  let stream
  if (data.port instanceof MessagePort) stream = portToStream(data.port)
  else if (data.stream instanceof ReadableStream) stream = data.stream
  else return
  downloads.set(data.id, {
    stream,
    name: String(data.name),
    size: Number(data.size),
    port: event.ports[0],
  })
  setTimeout(() => {
    const left = downloads.get(data.id)
    if (left && left.stream === stream) {
      downloads.delete(data.id)
      left.port?.close()
      stream.cancel('not fetched').catch(() => undefined)
    }
  }, UNCLAIMED_MS)
  event.ports[0]?.postMessage({ type: 'fileshare-ready', id: data.id })
})

/** `attachment` with an ASCII fallback name and the exact UTF-8 name (RFC 6266, RFC 8187). */
function contentDisposition(name) {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`
}

/**
 * The page that made the request answers a range of its stream `id`: first a head (status and
 * headers, from answerRange in the protocol package) on one port, then the plaintext on the other,
 * pumped by its transfer worker. The page going away ends every stream of it.
 */
async function streamRange(event, id) {
  const client = event.clientId ? await self.clients.get(event.clientId) : undefined
  if (!client) return new Response('Stream not found', { status: 404 })
  const reply = new MessageChannel()
  const body = new MessageChannel()
  const head = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), RANGE_ANSWER_MS)
    reply.port1.onmessage = (message) => {
      clearTimeout(timer)
      resolve(message.data)
    }
    const range = event.request.headers.get('Range')
    client.postMessage({ type: 'fileshare-range', id, range }, [reply.port2, body.port2])
  })
  reply.port1.close()
  if (!head || head.type !== 'fileshare-head' || typeof head.status !== 'number') {
    body.port1.close()
    return new Response('Stream not found', { status: 404 })
  }
  const headers = new Headers(head.headers)
  if (!MEDIA_TYPE.test(headers.get('Content-Type') ?? '')) {
    headers.set('Content-Type', 'application/octet-stream')
  }
  headers.set('Cache-Control', 'no-store')
  headers.set('X-Content-Type-Options', 'nosniff')
  if (!head.body) {
    body.port1.close()
    return new Response(null, { status: head.status, headers })
  }
  return new Response(portToStream(body.port1), { status: head.status, headers })
}

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url)
  if (url.origin !== self.location.origin) return
  if (url.pathname.startsWith(STREAM_PREFIX)) {
    event.respondWith(streamRange(event, url.pathname.slice(STREAM_PREFIX.length)))
    return
  }
  if (!url.pathname.startsWith(PREFIX)) return
  const id = url.pathname.slice(PREFIX.length)
  const download = downloads.get(id)
  downloads.delete(id)
  if (!download) {
    event.respondWith(new Response('Download not found', { status: 404 }))
    return
  }
  // Always bytes to save, never a type the sender chose: a file named as HTML or SVG is served
  // from this origin, and must not be rendered or sniffed into a page running here.
  const headers = new Headers({
    'Content-Type': 'application/octet-stream',
    'Content-Disposition': contentDisposition(download.name),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  })
  if (Number.isSafeInteger(download.size) && download.size >= 0) {
    headers.set('Content-Length', String(download.size))
  }
  event.respondWith(new Response(download.stream, { headers }))
  // The page waits for this to know the browser has taken the download over.
  download.port?.postMessage({ type: 'fileshare-started', id })
  download.port?.close()
})
