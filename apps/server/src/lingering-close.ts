/**
 * Closes an HTTP connection in stages (RFC 9112, section 9.6): after the last answer the server
 * sends its FIN but reads and discards what the client still sends, for up to `LINGER_MS`. Closed
 * at once, the socket would answer arriving bytes with a reset, and a client still sending a body
 * the server refused (an early 413) would lose the answer.
 * May touch: the socket it is given; timers.
 */
import type { Socket } from 'node:net'

/** The longest a closing connection keeps reading what its client still sends. */
const LINGER_MS = 2_000

/** Makes Node's close after a `Connection: close` answer (`destroySoon`) a lingering one. */
export function lingerOnClose(socket: Socket): void {
  socket.destroySoon = closeLingering
}

/** One function shared by every connection, set as its `destroySoon`. */
function closeLingering(this: Socket): void {
  if (this.destroyed) return
  // The client has closed its side already: nothing more can arrive to be discarded, so the
  // socket closes once what is written has gone out.
  if (this.readableEnded) {
    this.end(() => this.destroy())
    return
  }
  const timer = setTimeout(() => this.destroy(), LINGER_MS)
  timer.unref()
  this.once('close', () => clearTimeout(timer))
  this.once('end', () => this.destroy())
  this.end()
  this.resume()
}
