/**
 * A progress floor for upload sockets that hold something scarce, such as a slot of a request
 * (spec: Upload slot inside a request): every window of `windowMs`, wherever it starts, must bring
 * `minBytes`, or all that was left. Time the server kept the socket paused is not counted.
 * May touch: timers.
 */

export interface ProgressRule {
  windowMs: number
  minBytes: number
}

/** A moment from which the upload must reach `target` units within one window. */
interface Checkpoint {
  /** Client time, see `ProgressWatch.clientTime`. */
  at: number
  target: number
}

/** Checkpoints closer than this slice of a window merge, erring only in the client's favour. */
const CHECKPOINTS_PER_WINDOW = 64

export interface ProgressWatchOptions {
  rule: ProgressRule
  /** Bytes the upload has left to bring. */
  declaredSize: number
  /** Called once, when a window passes with too little progress. */
  onStall: () => void
  /** Monotonic milliseconds. */
  now?: () => number
}

/**
 * Watches one upload from `ready` until `stop()`. Each delivery adds a checkpoint (the bytes so
 * far plus the window's due) and settles the earlier ones it reaches; one timer waits for the
 * oldest, which falls due first since targets never decrease. The `finalize` frame counts as the
 * last unit: a client that sent every byte must still finish within a window.
 */
export class ProgressWatch {
  private readonly total: number
  private readonly now: () => number
  private readonly checkpoints: Checkpoint[] = []
  private delivered = 0
  private pausedMs = 0
  private pausedSince: number | undefined
  private timer: NodeJS.Timeout | undefined
  private armedFor: Checkpoint | undefined
  private stopped = false

  constructor(private readonly options: ProgressWatchOptions) {
    this.total = options.declaredSize + 1
    this.now = options.now ?? (() => performance.now())
    this.mark()
    this.arm()
  }

  received(bytes: number): void {
    if (this.stopped || bytes <= 0) return
    this.delivered += bytes
    while (this.checkpoints[0] && this.checkpoints[0].target <= this.delivered) {
      this.checkpoints.shift()
    }
    this.mark()
    this.arm()
  }

  /** The server stopped reading the socket: the client cannot deliver, so its time stands still. */
  pause(): void {
    if (this.stopped || this.pausedSince !== undefined) return
    this.pausedSince = this.now()
    this.disarm()
  }

  resume(): void {
    if (this.pausedSince === undefined) return
    this.pausedMs += this.now() - this.pausedSince
    this.pausedSince = undefined
    this.arm()
  }

  stop(): void {
    this.stopped = true
    this.disarm()
  }

  /** Milliseconds during which the socket was read, on the `now` clock's scale. */
  private clientTime(): number {
    const now = this.now()
    const paused = this.pausedSince === undefined ? 0 : now - this.pausedSince
    return now - this.pausedMs - paused
  }

  private mark(): void {
    const at = this.clientTime()
    const last = this.checkpoints.at(-1)
    const { windowMs, minBytes } = this.options.rule
    if (last && at - last.at < windowMs / CHECKPOINTS_PER_WINDOW) return
    this.checkpoints.push({ at, target: Math.min(this.delivered + minBytes, this.total) })
  }

  private arm(): void {
    const first = this.checkpoints[0]
    if (this.stopped || this.pausedSince !== undefined || !first) return
    if (this.timer && this.armedFor === first) return
    this.disarm()
    this.armedFor = first
    const wait = Math.max(0, first.at + this.options.rule.windowMs - this.clientTime())
    this.timer = setTimeout(() => this.check(), wait)
    // The socket keeps the process alive while it is open; the watch alone must not.
    this.timer.unref()
  }

  private disarm(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    this.armedFor = undefined
  }

  private check(): void {
    this.disarm()
    const first = this.checkpoints[0]
    if (this.stopped || this.pausedSince !== undefined || !first) return
    // A timer may fire a fraction of a millisecond before `now` says the window is over.
    if (this.clientTime() < first.at + this.options.rule.windowMs) {
      this.arm()
      return
    }
    this.stop()
    this.options.onStall()
  }
}
