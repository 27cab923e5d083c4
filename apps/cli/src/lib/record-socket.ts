/**
 * The command line's upload socket: `ws`'s WebSocket, whose `send` gives a sealed record's
 * buffer back to record-buffers.ts once the socket has written it, so the next record reuses it.
 * The protocol's transport calls `send(bytes)` as on a browser's socket; ws's own callback says
 * when the bytes are out. Loaded only by commands that upload, as ws is.
 */
import { WebSocket } from 'ws'

import { isHandedOn, releaseBuffer } from './record-buffers.js'

type SendOptions = Parameters<WebSocket['send']>[1]
type SendCallback = (error?: Error) => void

export class RecordSocket extends WebSocket {
  override send(
    data: Parameters<WebSocket['send']>[0],
    options?: SendOptions | SendCallback,
    callback?: SendCallback,
  ): void {
    if (data instanceof Uint8Array && isHandedOn(data) && options === undefined) {
      super.send(data, () => releaseBuffer(data))
    } else {
      super.send(data, options as SendOptions, callback)
    }
  }
}
