/**
 * Plays a file in a media element while it downloads: the element's address lies under the
 * service worker (`/__fileshare/stream/<id>`), which hands each range request it gets back to
 * this page; the page answers its head (answerRange) and has the transfer worker decrypt just
 * the records the range touches into the service worker's port. The keys stay in the transfer
 * worker; the service worker relays plaintext and keeps nothing. May touch the service worker
 * registration and the worker client, nothing of the page's state.
 */
import { answerRange } from '@fileshare/protocol'

import { ensureServiceWorker, KEEPALIVE_MS } from '../save/service-worker'
import { readRange, release } from '../worker/client'

const STREAM_PREFIX = '/__fileshare/stream/'
/** How long a page the service worker does not control waits for it to take control. */
const CLAIM_TIMEOUT_MS = 5_000

interface OpenStream {
  /** The handle of the file's ranges in the transfer worker. */
  ranges: string
  size: number
  type: string
}

const streams = new Map<string, OpenStream>()
let listening = false

interface RangeRequest {
  type: 'fileshare-range'
  id: string
  range: string | null
}

function isRangeRequest(data: unknown): data is RangeRequest {
  const d = data as Partial<RangeRequest> | null
  return (
    typeof d === 'object' && d !== null && d.type === 'fileshare-range' && typeof d.id === 'string'
  )
}

/** Answers one range request of the service worker: its head, then its plaintext. */
function answer(event: MessageEvent): void {
  if (!isRangeRequest(event.data)) return
  const [reply, body] = event.ports
  if (!reply || !body) return
  const stream = streams.get(event.data.id)
  if (!stream) {
    reply.postMessage({ type: 'fileshare-head', status: 404, headers: {}, body: false })
    body.close()
    return
  }
  const range = typeof event.data.range === 'string' ? event.data.range : null
  const head = answerRange(range, stream.size, stream.type)
  const hasBody = head.status !== 416 && head.end > head.start
  reply.postMessage({
    type: 'fileshare-head',
    status: head.status,
    headers: head.headers,
    body: hasBody,
  })
  reply.close()
  if (!hasBody) {
    body.close()
    return
  }
  // A media element drops a response when it seeks or has read enough: that cancels the range.
  readRange(stream.ranges, head.start, head.end, body).catch(() => undefined)
}

/** Whether the service worker controls this page, asking it to take control when it does not. */
async function controlled(worker: ServiceWorker): Promise<boolean> {
  const container = navigator.serviceWorker
  if (container.controller) return true
  const change = new Promise<boolean>((resolve) => {
    container.addEventListener('controllerchange', () => resolve(true), { once: true })
    setTimeout(() => resolve(container.controller !== null), CLAIM_TIMEOUT_MS)
  })
  worker.postMessage({ type: 'fileshare-claim' })
  return change
}

/** A stream a media element plays from `url`; `close` lets go of it and of its ranges. */
export interface PlayableStream {
  url: string
  close(): void
}

/**
 * Whether this browser can stream to a media element here: a service worker that controls
 * the page (registered on first use).
 */
export async function canStreamMedia(): Promise<boolean> {
  const worker = await ensureServiceWorker()
  return worker !== null && (await controlled(worker))
}

/**
 * Serves the opened ranges `ranges` (of `size` plaintext bytes, played as `type`) at a new
 * address of the service worker. Null when no service worker controls the page.
 */
export async function openMediaStream(
  ranges: string,
  size: number,
  type: string,
): Promise<PlayableStream | null> {
  const worker = await ensureServiceWorker()
  if (!worker || !(await controlled(worker))) return null
  if (!listening) {
    navigator.serviceWorker.addEventListener('message', answer)
    listening = true
  }
  const id = crypto.randomUUID()
  streams.set(id, { ranges, size, type })
  // A worker idle for a while is stopped by the browser; the element's next request starts it
  // again, but a response it is still reading would break.
  const keepalive = setInterval(() => worker.postMessage({ type: 'fileshare-ping' }), KEEPALIVE_MS)
  return {
    url: `${STREAM_PREFIX}${id}`,
    close() {
      clearInterval(keepalive)
      if (streams.delete(id)) void release(ranges).catch(() => undefined)
    },
  }
}
