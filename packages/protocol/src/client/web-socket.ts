/**
 * The subset of the browser's WebSocket the upload transport needs. The browser's global
 * `WebSocket` and the `ws` package's client both satisfy it, so the same transport code runs in
 * Node (the command line passes `(url) => new WebSocket(url)` from `ws`), in a page and in a
 * Web Worker (which pass the global).
 */

/**
 * A handler type checked bivariantly (a method's parameter rule), so the browser's
 * `(ev: MessageEvent) => any` and `ws`'s `(event: WebSocket.MessageEvent) => void` both fit.
 */
type Handler<E> = { bivarianceHack(event: E): void }['bivarianceHack']

export interface WebSocketMessageLike {
  /** A string for text frames; an ArrayBuffer (or a Node Buffer) for binary frames. */
  data: unknown
}

export interface WebSocketCloseLike {
  code: number
  reason: string
}

export interface WebSocketLike {
  /** Set to `'arraybuffer'` by the transport. */
  binaryType: string
  /** Bytes queued by `send` and not yet handed to the network. */
  readonly bufferedAmount: number
  /** 0 connecting, 1 open, 2 closing, 3 closed. */
  readonly readyState: number
  send(data: string | Uint8Array<ArrayBuffer>): void
  close(code?: number, reason?: string): void
  onopen: Handler<unknown> | null
  onmessage: Handler<WebSocketMessageLike> | null
  onerror: Handler<unknown> | null
  onclose: Handler<WebSocketCloseLike> | null
}

/** Opens a socket to `url` (`ws:` or `wss:`). No factory means uploads use chunked HTTP. */
export type WebSocketFactory = (url: string) => WebSocketLike
