/**
 * Moving a ReadableStream between the worker and the page (or the page and the service
 * worker): transferred where the browser can, otherwise pumped chunk by chunk through a
 * MessagePort with pull-driven backpressure. Errors travel as serialized client-core errors.
 */
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
  let settle!: { resolve: () => void; reject: (error: unknown) => void }
  const finished = new Promise<void>((resolve, reject) => (settle = { resolve, reject }))
  // Rejections are handled by whoever awaits; this keeps an unawaited one from being reported.
  finished.catch(() => undefined)
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
  return { stream: observed, finished }
}

type PortMessage =
  | { type: 'pull' }
  | { type: 'cancel'; reason: string }
  | { type: 'chunk'; chunk: Uint8Array }
  | { type: 'done' }
  | { type: 'error'; error: SerializedError }

/** Serves `stream` on `port`: one chunk per `pull`, so the reader sets the pace. */
export function streamToPort(stream: ReadableStream<Uint8Array>, port: MessagePort): void {
  const reader = stream.getReader()
  port.onmessage = async (event: MessageEvent<PortMessage>) => {
    const message = event.data
    if (message.type === 'cancel') {
      await reader.cancel(message.reason).catch(() => undefined)
      port.close()
      return
    }
    if (message.type !== 'pull') return
    try {
      const { done, value } = await reader.read()
      if (done) {
        port.postMessage({ type: 'done' } satisfies PortMessage)
        port.close()
      } else {
        const chunk =
          value.byteOffset === 0 && value.byteLength === value.buffer.byteLength
            ? value
            : value.slice()
        port.postMessage({ type: 'chunk', chunk } satisfies PortMessage, [
          chunk.buffer as ArrayBuffer,
        ])
      }
    } catch (error) {
      port.postMessage({ type: 'error', error: serializeError(error) } satisfies PortMessage)
      port.close()
    }
  }
}

/** The stream served on `port` by `streamToPort`. */
export function portToStream(port: MessagePort): ReadableStream<Uint8Array> {
  let waiting: ((message: PortMessage) => void) | null = null
  port.onmessage = (event: MessageEvent<PortMessage>) => {
    const resolve = waiting
    waiting = null
    resolve?.(event.data)
  }
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const message = await new Promise<PortMessage>((resolve) => {
          waiting = resolve
          port.postMessage({ type: 'pull' } satisfies PortMessage)
        })
        if (message.type === 'chunk') controller.enqueue(message.chunk)
        else if (message.type === 'done') {
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
