/**
 * The one place the server reaches past `ws`'s public interface, to its frame parser: a listener
 * ahead of ws's hears a refused frame while the spec's `error` frame can still be sent, and the
 * `maxPayload` checked at each frame header is set per socket. frame-refusals.test.ts guards both.
 * May touch: the WebSocket it is given (its frame parser's listeners and limit).
 */
import { EventEmitter } from 'node:events'

import type { WebSocket } from 'ws'

interface FrameParser extends EventEmitter {
  _maxPayload: number
  _opcode: number
}

const BINARY_OPCODE = 0x2

/** The frame parser of a `ws` socket, when it has the shape this module relies on. */
export function frameParserOf(ws: WebSocket): FrameParser | undefined {
  const receiver = (ws as unknown as { _receiver?: unknown })._receiver
  if (!(receiver instanceof EventEmitter)) return undefined
  const fields = receiver as Partial<FrameParser>
  if (typeof fields._maxPayload !== 'number' || typeof fields._opcode !== 'number') return undefined
  return receiver as FrameParser
}

/** Calls `listener` with ws's `WS_ERR_*` error while the socket is open; else ws closes alone. */
export function onFrameRefused(ws: WebSocket, listener: (error: unknown) => void): void {
  frameParserOf(ws)?.prependListener('error', listener)
}

/** ws refuses (1009) a message longer than `bytes` from the next frame header on. */
export function setFrameLimit(ws: WebSocket, bytes: number): void {
  const parser = frameParserOf(ws)
  // Zero would mean no limit at all to ws.
  if (parser) parser._maxPayload = Math.max(1, Math.floor(bytes))
}

/** Whether the message ws is reading, or has just refused, is binary. */
export function frameIsBinary(ws: WebSocket): boolean {
  return frameParserOf(ws)?._opcode === BINARY_OPCODE
}
