/**
 * One upload socket's share of the receive budget: as each frame header arrives on the socket's
 * connection (frame-meter.ts), it takes what the WebSocket parser will hold once that frame is
 * complete. When the budget cannot give it, reading pauses and the rest stays with the client.
 * May touch: the socket it is given (pauses its reads).
 */
import type { Duplex } from 'node:stream'

import { FrameMeter } from './frame-meter.js'
import type { ReceiveBudget } from '../limits/receive-budget.js'

export interface ReceiveAccountOptions {
  budget: ReceiveBudget
  /** The longest message the socket may be sent; a longer frame is refused from its header. */
  maxFrame: number
  /** Stops reading the socket while the budget cannot give what the next frame needs. */
  pause(): void
  resume(): void
}

export class ReceiveAccount {
  private readonly meter = new FrameMeter()
  /** Bytes this socket has taken from the budget for the parser. */
  private granted = 0
  private cancelWait: (() => void) | undefined
  private closed = false
  private readonly onData = (chunk: Buffer) => {
    // A chunk already being emitted reaches this listener even after close() removed it.
    if (this.closed) return
    this.meter.push(chunk)
    this.settle()
  }

  /** Listens after the WebSocket parser, so each chunk is counted once the parser has taken it. */
  constructor(
    private readonly socket: Duplex,
    private readonly options: ReceiveAccountOptions,
  ) {
    socket.on('data', this.onData)
  }

  get waiting(): boolean {
    return this.cancelWait !== undefined
  }

  /** The parser handed on `bytes` for storage: still counted, now for the caller to give back. */
  handOver(bytes: number): void {
    const moved = Math.min(bytes, this.granted)
    this.granted -= moved
    this.options.budget.force(bytes - moved)
  }

  /** Gives back everything this socket holds of the budget and stops counting. */
  close(): void {
    if (this.closed) return
    this.closed = true
    this.socket.off('data', this.onData)
    this.stopWaiting()
    this.options.budget.give(this.granted)
    this.granted = 0
  }

  private settle(): void {
    const { budget, maxFrame } = this.options
    const held = this.meter.heldBytes
    // A frame longer than any the socket may be sent is refused from its header; it commits none.
    const needed = Math.min(this.meter.committedBytes, held + maxFrame)
    const wasWaiting = this.waiting
    this.stopWaiting()
    if (needed <= this.granted || budget.tryTake(needed - this.granted)) {
      budget.give(this.granted - needed)
      this.granted = needed
      if (wasWaiting) this.options.resume()
      return
    }
    if (held > this.granted) {
      budget.force(held - this.granted)
      this.granted = held
    }
    if (!wasWaiting) this.options.pause()
    this.cancelWait = budget.wait(needed - this.granted, () => {
      this.cancelWait = undefined
      this.granted = needed
      this.options.resume()
    })
  }

  private stopWaiting(): void {
    this.cancelWait?.()
    this.cancelWait = undefined
  }
}
