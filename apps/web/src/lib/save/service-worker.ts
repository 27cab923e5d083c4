/**
 * Saving through the service worker (`/sw.js`): the page hands the service worker one end of a
 * channel whose other end the transfer worker pumps the plaintext into (worker/streams.ts), and
 * opens its one-time address in a hidden frame; the browser's ordinary download takes the bytes
 * as they are decrypted, so nothing is held in memory.
 */

export const SERVICE_WORKER_URL = '/sw.js'
const DOWNLOAD_PREFIX = '/__fileshare/download/'
/** Chromium stops an idle service worker after 30 s; a message every 10 s keeps it running. */
export const KEEPALIVE_MS = 10_000
const READY_TIMEOUT_MS = 5_000
/** How long the browser may take to fetch the download address before the save counts as failed. */
const START_TIMEOUT_MS = 15_000

/** How long the hidden frame stays after the download's end (see saveWithServiceWorker). */
const FRAME_LINGER_MS = 1_000

let registration: Promise<ServiceWorker | null> | undefined

function withTimeout<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((resolve) => setTimeout(() => resolve(fallback), ms)),
  ])
}

/** Registers the download worker once; null where the browser offers none or refuses it. */
export function ensureServiceWorker(): Promise<ServiceWorker | null> {
  registration ??= (async () => {
    if (typeof navigator === 'undefined' || !('serviceWorker' in navigator)) return null
    if (typeof window !== 'undefined' && !window.isSecureContext) return null
    try {
      await navigator.serviceWorker.register(SERVICE_WORKER_URL, { scope: '/' })
      const ready = await withTimeout(navigator.serviceWorker.ready, READY_TIMEOUT_MS, null)
      return ready?.active ?? null
    } catch {
      return null
    }
  })()
  return registration
}

export interface SaveInfo {
  name: string
  type: string
}

/**
 * Hands `source` (the port the plaintext arrives on) to the service worker and starts the
 * browser download. Resolves when the browser has taken every byte (`finished`, the download's
 * end as the transfer worker saw it), rejects with its error, or when the browser never fetched
 * the download address.
 */
export async function saveWithServiceWorker(
  worker: ServiceWorker,
  source: MessagePort,
  info: SaveInfo,
  size: number,
  finished: Promise<void>,
): Promise<void> {
  const id = crypto.randomUUID()
  const reply = new MessageChannel()
  let onStarted: () => void = () => undefined
  const started = new Promise<void>((resolve) => (onStarted = resolve))
  const accepted = new Promise<void>((resolve) => {
    reply.port1.onmessage = (event: MessageEvent<{ type?: string }>) => {
      if (event.data.type === 'fileshare-ready') resolve()
      if (event.data.type === 'fileshare-started') onStarted()
    }
  })
  worker.postMessage(
    {
      type: 'fileshare-download',
      id,
      name: info.name,
      size,
      port: source,
    },
    [reply.port2, source],
  )
  await accepted

  const frame = document.createElement('iframe')
  frame.hidden = true
  frame.title = info.name
  frame.src = `${DOWNLOAD_PREFIX}${id}`
  document.body.append(frame)

  const keepalive = setInterval(() => worker.postMessage({ type: 'fileshare-ping' }), KEEPALIVE_MS)
  try {
    const timedOut = await withTimeout(
      started.then(() => false),
      START_TIMEOUT_MS,
      true,
    )
    // The plaintext flows from the transfer worker to the service worker; the caller's AbortSignal
    // stops its source.
    if (timedOut) throw new Error('The browser did not start the download')
    await finished
  } finally {
    reply.port1.close()
    clearInterval(keepalive)
    // The frame goes once the browser has taken the last bytes; removing it earlier could cancel.
    // `finished` settles when the transfer worker has sent the last chunk, which the service
    // worker had asked for ahead of the browser's reading: up to PORT_WINDOW - 1 records (3 MiB)
    // may still wait there. The browser takes them at disk speed, tens of milliseconds, so a
    // second after the end they are long written; on a failure there is nothing left to take.
    setTimeout(() => frame.remove(), FRAME_LINGER_MS)
  }
}
