/**
 * The module worker that runs the client core: encryption, zipping, Argon2 and every transfer,
 * off the page's main thread. Each call answers once with a result or an error; downloads answer
 * with a stream that is transferred (or pumped through a port) to the page.
 */
import { ApiClient } from '@fileshare/protocol'

import { serializeError, type FromWorker, type ResultMessage, type ToWorker } from './messages'
import { createMethods, type CallContext, type WorkerMethods } from './methods'
import { canTransferStreams, streamToPort, withSerializedErrors } from './streams'

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
})

const methods = createMethods(api)
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
      const stream = withSerializedErrors(item as ReadableStream<Uint8Array>)
      if (canTransferStreams()) {
        copy[key] = stream
        transfer.push(stream as unknown as Transferable)
      } else {
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
  const { id, method, args } = message
  const controller = new AbortController()
  running.set(id, controller)
  const ctx: CallContext = {
    signal: controller.signal,
    progress: (value) => post({ type: 'progress', id, value }),
  }
  try {
    const fn = methods[method as keyof WorkerMethods] as
      ((ctx: CallContext, ...rest: unknown[]) => Promise<unknown>) | undefined
    if (!fn) throw new Error(`Unknown worker method ${method}`)
    postResult(id, await fn(ctx, ...args))
  } catch (error) {
    post({ type: 'error', id, error: serializeError(error) })
  } finally {
    running.delete(id)
  }
}
