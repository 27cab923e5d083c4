/**
 * The module worker that runs the client core: encryption, zipping, Argon2 and every transfer,
 * off the page's main thread. Each call answers once with a result or an error; downloads answer
 * with a stream that is transferred (or pumped through a port) to the page, or, when the call
 * came with a `sink` port, is pumped into it (to the service worker) and ends with an `end`.
 */
import { ApiClient } from '@fileshare/protocol'

import { serializeError, type FromWorker, type ResultMessage, type ToWorker } from './messages'
import { createMethods, type CallContext, type WorkerMethods } from './methods'
import { canTransferStreams, streamToPort, withSerializedErrors } from './streams'
import { xhrFetch } from './xhr-fetch'

/** The parts of a dedicated worker's global scope used here (the DOM typings lack the type). */
interface WorkerScope {
  location: { origin: string }
  postMessage(message: unknown, transfer: Transferable[]): void
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null
}

const scope = self as unknown as WorkerScope

const api = new ApiClient({
  baseUrl: scope.location.origin,
  credentials: 'same-origin',
  // The core turns the base address into ws:// or wss:// itself.
  webSocket: (url) => new WebSocket(url),
  // Chunks of the HTTP upload, whose progress fetch cannot tell.
  progressFetch: xhrFetch,
})

const methods = createMethods(api)
/**
 * Progress reaches the page at most this often: the core reports every chunk (every 64 KiB of a
 * download), and each message costs the page a task and a re-render that compete with the
 * transfer for the CPU.
 */
const PROGRESS_INTERVAL_MS = 100
const running = new Map<number, AbortController>()

function post(message: FromWorker, transfer: Transferable[] = []): void {
  scope.postMessage(message, transfer)
}

/** Sends a result; a ReadableStream inside it is transferred or served on a port. */
function postResult(id: number, value: unknown): void {
  const transfer: Transferable[] = []
  const message: ResultMessage = { type: 'result', id, value }
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) }
    for (const [key, item] of Object.entries(copy)) {
      if (!(item instanceof ReadableStream)) continue
      const stream = item as ReadableStream<Uint8Array>
      if (canTransferStreams()) {
        // The browser clones a transferred stream's error: only a plain object keeps its fields.
        const serialized = withSerializedErrors(stream)
        copy[key] = serialized
        transfer.push(serialized as unknown as Transferable)
      } else {
        // streamToPort serializes the error it sends.
        const channel = new MessageChannel()
        streamToPort(stream, channel.port1)
        copy[key] = channel.port2
        transfer.push(channel.port2)
        ;(message.portStreams ??= []).push(key)
      }
    }
    message.value = copy
  }
  post(message, transfer)
}

scope.onmessage = async (event: MessageEvent<ToWorker>) => {
  const message = event.data
  if (message.type === 'abort') {
    running.get(message.id)?.abort(new DOMException('Cancelled', 'AbortError'))
    return
  }
  const { id, method, args, sink } = message
  const controller = new AbortController()
  running.set(id, controller)
  const progress = throttledProgress(id)
  const ctx: CallContext = {
    signal: controller.signal,
    progress: progress.report,
    event: progress.now,
  }
  /** The call is over for the page: no more progress, and an abort has nothing left to stop. */
  const over = () => {
    progress.stop()
    running.delete(id)
  }
  let result: unknown
  /** The download's plaintext, when the call came with a sink for it. */
  let plaintext: ReadableStream<Uint8Array> | undefined
  try {
    const fn = methods[method as keyof WorkerMethods] as
      ((ctx: CallContext, ...rest: unknown[]) => Promise<unknown>) | undefined
    if (!fn) throw new Error(`Unknown worker method ${method}`)
    result = await fn(ctx, ...args)
    plaintext = sink ? plaintextOf(result) : undefined
    if (sink && !plaintext) throw new Error(`${method} sends no plaintext`)
  } catch (error) {
    progress.flush()
    post({ type: 'error', id, error: serializeError(error) })
    sink?.close()
    over()
    return
  }
  if (!sink || !plaintext) {
    progress.flush()
    postResult(id, result)
    over()
    return
  }
  // The plaintext goes straight to the service worker; the page hears how it ended. Progress and
  // cancellation last until then. streamToPort serializes the error it sends.
  const { stream: _sent, ...rest } = result as { stream: ReadableStream<Uint8Array> }
  postResult(id, rest)
  streamToPort(plaintext, sink, (error) => {
    progress.flush()
    post(
      error === undefined ? { type: 'end', id } : { type: 'end', id, error: serializeError(error) },
    )
    over()
  })
}

/** The plaintext `stream` of a download's result, if it has one. */
function plaintextOf(result: unknown): ReadableStream<Uint8Array> | undefined {
  const stream = (result as { stream?: unknown } | null)?.stream
  return stream instanceof ReadableStream ? (stream as ReadableStream<Uint8Array>) : undefined
}

/**
 * The call's progress channel, posting the first report at once, then the latest one at most
 * every PROGRESS_INTERVAL_MS; `flush` posts a report still waiting. `stop` drops it and every
 * later one: the page forgets a call once it is answered, or, for a download sent to a sink,
 * once its plaintext has ended. `now` posts a report that must not be replaced by a later one (an
 * event rather than a count), after the one waiting.
 */
function throttledProgress(id: number) {
  let last = 0
  let stopped = false
  let pending: { value: unknown } | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  const flush = () => {
    clearTimeout(timer)
    timer = undefined
    if (!pending) return
    const { value } = pending
    pending = undefined
    last = performance.now()
    post({ type: 'progress', id, value })
  }
  return {
    report(value: unknown) {
      if (stopped) return
      pending = { value }
      if (timer !== undefined) return
      const wait = last + PROGRESS_INTERVAL_MS - performance.now()
      if (wait <= 0) flush()
      else timer = setTimeout(flush, wait)
    },
    flush,
    now(value: unknown) {
      if (stopped) return
      flush()
      post({ type: 'progress', id, value })
    },
    stop() {
      stopped = true
      clearTimeout(timer)
      timer = undefined
      pending = undefined
    },
  }
}
