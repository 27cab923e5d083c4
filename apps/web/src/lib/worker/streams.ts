/**
 * Moving a ReadableStream out of the transfer worker: to the page, transferred where the browser
 * can, otherwise pumped chunk by chunk through a MessagePort with pull-driven backpressure; to the
 * service worker always through a port (`public/sw.js` holds its own copy of `portToStream`).
 * Errors travel as serialized client-core errors.
 */
import { deferred } from '@fileshare/protocol'

import { isSerializedError, reviveError, serializeError, type SerializedError } from './messages'

let transferable: boolean | undefined

/** Whether this browser can transfer ReadableStreams with postMessage. */
export function canTransferStreams(): boolean {
  if (transferable === undefined) {
    try {
      const stream = new ReadableStream()
      structuredClone(stream, { transfer: [stream as unknown as Transferable] })
      transferable = true
    } catch {
      transferable = false
    }
  }
  return transferable
}

/** The same bytes, but a failure errors the stream with a serialized (cloneable) error. */
export function withSerializedErrors(
  stream: ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  const reader = stream.getReader()
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read()
          if (done) controller.close()
          else controller.enqueue(value)
        } catch (error) {
          controller.error(serializeError(error))
        }
      },
      cancel(reason) {
        return reader.cancel(reason)
      },
    },
    { highWaterMark: 0 },
  )
}

export interface ObservedStream {
  stream: ReadableStream<Uint8Array>
  /** Settles when the consumer has read the stream to its end, or rejects with its error. */
  finished: Promise<void>
}

/**
 * Passes the bytes through, reviving serialized errors into the client core's classes, counting
 * bytes for progress, and telling through `finished` how the stream ended.
 */
export function observeStream(
  stream: ReadableStream<Uint8Array>,
  onBytes?: (total: number) => void,
): ObservedStream {
  const reader = stream.getReader()
  let total = 0
  const settle = deferred<void>()
  const observed = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let chunk: ReadableStreamReadResult<Uint8Array>
        try {
          chunk = await reader.read()
        } catch (error) {
          const revived = isSerializedError(error) ? reviveError(error) : error
          settle.reject(revived)
          controller.error(revived)
          return
        }
        if (chunk.done) {
          settle.resolve()
          controller.close()
          return
        }
        total += chunk.value.byteLength
        onBytes?.(total)
        controller.enqueue(chunk.value)
      },
      cancel(reason) {
        settle.reject(reason ?? new DOMException('Cancelled', 'AbortError'))
        return reader.cancel(reason)
      },
    },
    { highWaterMark: 0 },
  )
  return { stream: observed, finished: settle.promise }
}

type PortMessage =
  | { type: 'pull' }
  | { type: 'cancel'; reason: string }
  | { type: 'chunk'; chunk: Uint8Array }
  | { type: 'done' }
  | { type: 'error'; error: SerializedError }

/**
 * Chunks the reading end of a port asks for ahead of its reader, so the writer need not wait a
 * round trip between threads for each request; it also bounds what waits in the reader's queue
 * (four records, 4 MiB). On the two-core test machine one, four and eight measured the same
 * (`pnpm bench:web`, 137–157 MB/s download), as the records are large against a round trip.
 */
export const PORT_WINDOW = 4

/** A chunk whose whole buffer can be transferred: `value` itself when it spans its buffer. */
function ownBuffer(value: Uint8Array): Uint8Array<ArrayBuffer> {
  return value.byteOffset === 0 &&
    value.byteLength === value.buffer.byteLength &&
    value.buffer instanceof ArrayBuffer
    ? (value as Uint8Array<ArrayBuffer>)
    : value.slice()
}

/**
 * Serves `stream` on `port`: one chunk per `pull` the reader sent, its buffer transferred (not
 * copied), so the reader sets the pace. `onEnd` is told once how it ended: nothing when every
 * chunk and the end went out, else the stream's error, or an AbortError when the reader
 * cancelled.
 */
export function streamToPort(
  stream: ReadableStream<Uint8Array>,
  port: MessagePort,
  onEnd?: (error?: unknown) => void,
): void {
  const reader = stream.getReader()
  let credits = 0
  let pumping = false
  let over = false
  const end = (error?: unknown) => {
    if (over) return
    over = true
    port.close()
    onEnd?.(error)
  }
  const pump = async () => {
    if (pumping) return
    pumping = true
    try {
      while (credits > 0 && !over) {
        credits--
        const { done, value } = await reader.read()
        if (over) return
        if (done) {
          port.postMessage({ type: 'done' } satisfies PortMessage)
          end()
          return
        }
        const chunk = ownBuffer(value)
        port.postMessage({ type: 'chunk', chunk } satisfies PortMessage, [chunk.buffer])
      }
    } catch (error) {
      if (over) return
      port.postMessage({ type: 'error', error: serializeError(error) } satisfies PortMessage)
      end(error)
    } finally {
      pumping = false
    }
  }
  port.onmessage = (event: MessageEvent<PortMessage>) => {
    const message = event.data
    if (message.type === 'cancel') {
      if (over) return
      end(new DOMException('Cancelled', 'AbortError'))
      reader.cancel(message.reason).catch(() => undefined)
    } else if (message.type === 'pull') {
      credits++
      void pump()
    }
  }
}

/** The stream served on `port` by `streamToPort`, asking for `PORT_WINDOW` chunks ahead. */
export function portToStream(port: MessagePort): ReadableStream<Uint8Array> {
  const arrived: PortMessage[] = []
  let waiting: (() => void) | null = null
  port.onmessage = (event: MessageEvent<PortMessage>) => {
    arrived.push(event.data)
    const wake = waiting
    waiting = null
    wake?.()
  }
  return new ReadableStream<Uint8Array>(
    {
      start() {
        for (let n = 0; n < PORT_WINDOW; n++)
          port.postMessage({ type: 'pull' } satisfies PortMessage)
      },
      async pull(controller) {
        if (arrived.length === 0) await new Promise<void>((resolve) => (waiting = resolve))
        const message = arrived.shift()!
        if (message.type === 'chunk') {
          controller.enqueue(message.chunk)
          // The chunk is the reader's now: room for one more.
          port.postMessage({ type: 'pull' } satisfies PortMessage)
        } else if (message.type === 'done') {
          port.close()
          controller.close()
        } else if (message.type === 'error') {
          port.close()
          controller.error(message.error)
        }
      },
      cancel(reason) {
        port.postMessage({ type: 'cancel', reason: String(reason) } satisfies PortMessage)
        port.close()
      },
    },
    { highWaterMark: 0 },
  )
}
