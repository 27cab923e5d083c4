/**
 * Closes an HTTP connection in stages (RFC 9112, section 9.6): once the last answer is written
 * the server sends its FIN but goes on reading, and discarding, whatever the client still sends,
 * until the client closes its side or `LINGER_MS` have passed. A socket closed at once with bytes
 * still arriving answers them with a reset, and a client still sending a body the server refused
 * (a 413 before the body was read) would lose the answer it had not read yet.
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
