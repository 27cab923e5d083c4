/**
 * The one place the server reaches past `ws`'s public interface. ws refuses some frames itself
 * (one larger than `maxPayload`, a malformed frame, bad UTF-8) on its frame parser, the socket's
 * private `_receiver`, and closes the socket in the same step, before the socket's own `error`
 * event; after that no frame can be sent. A listener put ahead of ws's on the parser can still
 * send the spec's `error` frame before the close (spec: WebSocket /api/upload/ws, Failure).
 * frame-refusals.test.ts fails when ws changes this, so an upgrade cannot break it unseen.
 */
import { EventEmitter } from 'node:events'

import type { WebSocket } from 'ws'

/** The frame parser of a `ws` socket, when it has the shape this module relies on. */
export function frameParserOf(ws: WebSocket): EventEmitter | undefined {
  const receiver = (ws as unknown as { _receiver?: unknown })._receiver
  return receiver instanceof EventEmitter ? receiver : undefined
}

/**
 * Calls `listener` with ws's error (its `code` is `WS_ERR_*`) when ws refuses a frame, while the
 * socket is still open. Returns false when the parser is not there (then ws closes as it does).
 */
export function onFrameRefused(ws: WebSocket, listener: (error: unknown) => void): boolean {
  const parser = frameParserOf(ws)
  parser?.prependListener('error', listener)
  return parser !== undefined
}
