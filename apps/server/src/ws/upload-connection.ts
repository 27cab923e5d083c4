/**
 * One upload WebSocket from its first frame to its close (spec: WebSocket /api/upload/ws): frame
 * order, backpressure, keepalive, a progress floor, and each failure as `error` frame and close.
 * May touch: the WebSocket it is given; timers (keepalive); the log.
 */
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'

import {
  ERROR_MESSAGES,
  WS_CLOSE_CODES,
  WS_CONTROL_FRAME_MAX_BYTES,
  WS_INIT_TIMEOUT_MS,
  type UploadWsServerFrame,
  type WsCloseCode,
} from '@fileshare/protocol'
import type { WebSocket } from 'ws'

import { HttpError } from '../http-error.js'
import type { Logger } from '../logger.js'
import { frameIsBinary, onFrameRefused, setFrameLimit } from './frame-refusals.js'
import { ProgressWatch, type ProgressRule } from './progress-watch.js'
import { ReceiveAccount } from './receive-account.js'
import type { ReceiveBudget } from '../limits/receive-budget.js'
import type {
  ControlFrame,
  DoneFields,
  OpenedUpload,
  UploadSocketHandler,
} from './upload-handler.js'

/** Reading pauses at min(4 MiB, half the max buffer), whose other half takes what still arrives. */
export function bufferLimits(maxBuffer: number) {
  const highWater = Math.min(4 * 1024 * 1024, Math.floor(maxBuffer / 2))
  return { maxBuffer, highWater, lowWater: Math.floor(highWater / 2) }
}

type Phase = 'awaiting-init' | 'opening' | 'receiving' | 'finalizing' | 'ended'

/** Why reading is paused: storage is behind, or the receive budget cannot give the next frame. */
type ReadHold = 'store' | 'budget'

export interface UploadConnectionOptions {
  limits: ReturnType<typeof bufferLimits>
  logger: Logger
  /** Told the bytes waiting for the store after each frame (a debug peak counter). */
  onPending(bytes: number): void
  /** FILE_UPLOAD_WS_BUFFER_BUDGET, against which the frames of `socket` are counted. */
  budget: ReceiveBudget
  socket: Duplex
  initTimeoutMs?: number
  /** A floor so that a trickle cannot hold a blob, quota and slot for ever (spec: Upload slot). */
  progress: ProgressRule
}

export class UploadConnection {
  private phase: Phase = 'awaiting-init'
  private upload: OpenedUpload | undefined
  /** Bytes received whose `append` has not resolved yet. */
  private pending = 0
  /** Bytes the upload still lacks, from `ready` on. */
  private lacking = 0
  private readonly holds = new Set<ReadHold>()
  private readonly account: ReceiveAccount
  /** Counts frames, pongs and reads taken up again: the peer answered a ping if it moved since. */
  private heard = 0
  /** `heard` at the keepalive's latest ping; none yet at first. */
  private heardAtPing = -1
  /** The progress rule at work between `ready` and `finalize`. */
  private progress: ProgressWatch | undefined
  readonly closed: Promise<void>
  /** Fails a socket that has not sent `init` in time, so a silent one holds nothing for long. */
  private readonly initTimer: NodeJS.Timeout

  constructor(
    readonly ws: WebSocket,
    private readonly request: IncomingMessage,
    private readonly handler: UploadSocketHandler,
    private readonly options: UploadConnectionOptions,
  ) {
    // ws's default binary type hands every message over as one Buffer.
    ws.on('message', (data, isBinary) => this.receive(data as Buffer, isBinary))
    // Counted after ws has read each chunk (ws listens to the connection first).
    this.account = new ReceiveAccount(options.socket, {
      budget: options.budget,
      maxFrame: options.limits.maxBuffer,
      pause: () => this.holdReading('budget'),
      resume: () => this.releaseReading('budget'),
    })
    ws.on('pong', () => this.heard++)
    // ws refuses some frames itself and closes the socket at once. Heard ahead of ws, such a
    // refusal fails the upload like any other: an `error` frame, then the close (step 6, Failure).
    onFrameRefused(ws, (error) => this.refusedByWs(error))
    ws.on('error', (error) =>
      this.options.logger.debug('upload socket closed on a protocol error', error),
    )
    this.closed = new Promise((resolve) => {
      ws.once('close', (code: number) => {
        this.onClose(code)
        resolve()
      })
    })
    this.initTimer = setTimeout(() => {
      if (this.phase === 'awaiting-init') {
        this.fail(WS_CLOSE_CODES.policyViolation, ERROR_MESSAGES.initFrameTimeout, 408)
      }
    }, options.initTimeoutMs ?? WS_INIT_TIMEOUT_MS)
    this.initTimer.unref()
  }

  /** Reading is paused, so no pong can arrive and the client cannot deliver. */
  private get paused(): boolean {
    return this.holds.size > 0
  }

  /** Drops a socket silent since the last ping, when `judge`; a paused one cannot read its pong. */
  heartbeat(judge: boolean): void {
    if (judge && this.heard === this.heardAtPing && !this.paused) {
      this.ws.terminate()
      return
    }
    this.heardAtPing = this.heard
    this.ws.ping()
  }

  /** Pings and drops the socket if silent for `withinMs`: a resume waits on its session's peer. */
  private probe(withinMs: number): void {
    if (this.phase !== 'receiving' || this.ws.readyState !== this.ws.OPEN) return
    const heard = this.heard
    this.ws.ping()
    const timer = setTimeout(() => {
      // After this turn's reads, so that a pong already delivered to the process is heard first.
      setImmediate(() => {
        if (this.phase === 'receiving' && this.heard === heard && !this.paused) this.ws.terminate()
      })
    }, withinMs)
    timer.unref()
  }

  private receive(data: Buffer, isBinary: boolean): void {
    // Any frame proves the peer alive: a pong may wait behind megabytes of the client's data.
    this.heard++
    if (this.phase === 'ended') return
    if (isBinary) return this.receiveBytes(data)
    // Control frames are small JSON objects; a large one is refused before it is parsed.
    if (data.length > this.controlFrameLimit()) {
      return this.fail(WS_CLOSE_CODES.messageTooBig, ERROR_MESSAGES.controlFrameTooLarge, 413)
    }
    let frame: ControlFrame | undefined
    try {
      frame = JSON.parse(data.toString('utf8')) as ControlFrame
    } catch {
      // Refused below, as anything else that is not an object.
    }
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) {
      return this.fail(WS_CLOSE_CODES.unsupportedData, ERROR_MESSAGES.unsupportedFrame, 400)
    }
    const { type } = frame
    if ((type === 'init' || type === 'resume') && this.phase === 'awaiting-init') {
      void this.open(frame, type)
    } else if (type === 'finalize' && this.phase === 'receiving') {
      void this.finish(frame)
    } else {
      // A second init, a finalize before ready or after finalize, or an unknown type.
      this.fail(WS_CLOSE_CODES.protocolError, ERROR_MESSAGES.protocolViolation, 400)
    }
  }

  private async open(frame: ControlFrame, how: 'init' | 'resume'): Promise<void> {
    this.phase = 'opening'
    clearTimeout(this.initTimer)
    let upload: OpenedUpload
    try {
      upload = await this.handler[how](frame, this.request)
    } catch (error) {
      // A refused resume leaves its session as it was: nothing was opened to discard.
      return this.failWith(error)
    }
    if (this.phase !== 'opening') {
      // The socket closed or broke the protocol while the session was being opened.
      return this.endSession('suspend', upload.session)
    }
    this.upload = upload
    this.phase = 'receiving'
    const { id, startOffset, declaredSize } = upload.session
    this.lacking = declaredSize - startOffset
    this.limitFrames()
    upload.session.onProbe((withinMs) => this.probe(withinMs))
    // A resume answers where the bytes continue: the client sends from there.
    this.send(how === 'init' ? { type: 'ready', id } : { type: 'ready', id, offset: startOffset })
    this.progress = new ProgressWatch({
      rule: this.options.progress,
      // A resumed upload has only what follows its offset left to bring.
      declaredSize: this.lacking,
      onStall: () => this.fail(WS_CLOSE_CODES.policyViolation, ERROR_MESSAGES.uploadStalled, 408),
    })
    if (this.paused) this.progress.pause()
  }

  /**
   * The longest frame ws takes from its next header on, refusing a longer one before its payload:
   * a control frame, or while receiving what the upload lacks, up to the max buffer.
   */
  private limitFrames(): void {
    const { maxBuffer } = this.options.limits
    const control = this.controlFrameLimit()
    const limit =
      this.phase === 'receiving' ? Math.max(control, Math.min(maxBuffer, this.lacking)) : control
    setFrameLimit(this.ws, limit)
  }

  /** The longest text frame taken now: the route's `finalize` once every byte is in. */
  private controlFrameLimit(): number {
    const finalizing = this.phase === 'receiving' && this.lacking === 0
    const finalizeMax = finalizing ? (this.handler.finalizeFrameMaxBytes ?? 0) : 0
    return Math.max(WS_CONTROL_FRAME_MAX_BYTES, finalizeMax)
  }

  /** Hands bytes to the session at once (its write chain keeps order); pending until stored. */
  private receiveBytes(bytes: Buffer): void {
    if (this.phase !== 'receiving' || !this.upload) {
      // Binary before ready, or after finalize (spec: close code 1002).
      return this.fail(WS_CLOSE_CODES.protocolError, ERROR_MESSAGES.protocolViolation, 400)
    }
    let written: Promise<void>
    try {
      // Throws 400 size mismatch for bytes past the declared length.
      written = this.upload.session.append(bytes)
    } catch (error) {
      return this.failWith(error)
    }
    this.progress?.received(bytes.length)
    this.lacking -= bytes.length
    this.limitFrames()
    const { limits, budget } = this.options
    this.pending += bytes.length
    // The frame's bytes move from the parser to the store's queue: still held, still counted.
    this.account.handOver(bytes.length)
    this.options.onPending(this.pending)
    const stored = () => {
      this.pending -= bytes.length
      budget.give(bytes.length)
      if (this.pending <= limits.lowWater) this.releaseReading('store')
    }
    written.then(stored, (error: unknown) => {
      stored()
      this.failWith(error)
    })
    if (this.pending > limits.maxBuffer) {
      this.fail(WS_CLOSE_CODES.messageTooBig, ERROR_MESSAGES.bufferExceeded, 413)
    } else if (this.pending >= limits.highWater) {
      this.holdReading('store')
    }
  }

  private async finish(frame: ControlFrame): Promise<void> {
    this.phase = 'finalizing'
    this.limitFrames()
    // The commit is the server's work; the finalize frame was the client's last delivery.
    this.progress?.stop()
    const upload = this.upload!
    let done: DoneFields
    try {
      done = await upload.finalize(frame)
    } catch (error) {
      return this.failWith(error)
    }
    if (this.phase !== 'finalizing') {
      // The socket failed or closed during the commit: the client never learns of the upload.
      upload.revoke(done.id).catch((error: unknown) => {
        this.options.logger.error('removing an upload stored after its socket ended failed', error)
      })
      return
    }
    this.phase = 'ended'
    this.send({ ...done, type: 'done' })
    this.shut(WS_CLOSE_CODES.normal, '')
  }

  private holdReading(hold: ReadHold): void {
    if (this.holds.has(hold)) return
    const wasPaused = this.paused
    this.holds.add(hold)
    if (wasPaused) return
    this.ws.pause()
    // The client cannot deliver while the server does not read: its window stands still.
    this.progress?.pause()
  }

  private releaseReading(hold: ReadHold): void {
    if (!this.holds.delete(hold) || this.paused) return
    // Pongs were not read while paused; the next tick must not hold that against the client.
    this.heard++
    this.progress?.resume()
    this.ws.resume()
  }

  /** A frame of the spec, with this project's fields (a resume's `offset`, an error's `details`). */
  private send(frame: UploadWsServerFrame & Record<string, unknown>): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(frame))
  }

  /** Starts the closing handshake; reading resumes, outside the budget, for the client's close. */
  private shut(code: WsCloseCode, reason: string): void {
    this.limitFrames()
    this.account.close()
    for (const hold of [...this.holds]) this.releaseReading(hold)
    // A close reason is limited to 123 bytes (RFC 6455 §5.5); the error frame carries it anyway.
    this.ws.close(code, Buffer.byteLength(reason) <= 123 ? reason : '')
  }

  /** Sends `error`, closes with `code` and discards the session (spec: step 6, Failure). */
  private fail(
    code: WsCloseCode,
    message: string,
    status: number,
    details?: Record<string, string>,
  ): void {
    if (this.phase === 'ended') return
    this.phase = 'ended'
    clearTimeout(this.initTimer)
    this.progress?.stop()
    this.send({ type: 'error', message, status, ...(details ? { details } : {}) })
    this.shut(code, message)
    this.endSession('abort')
  }

  /** A frame ws refused (limitFrames), answered with the spec's close code as if it was read. */
  private refusedByWs(error: unknown): void {
    const code = (error as { code?: unknown }).code
    if (
      code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ||
      code === 'WS_ERR_UNSUPPORTED_DATA_PAYLOAD_LENGTH'
    ) {
      if (!frameIsBinary(this.ws)) {
        this.fail(WS_CLOSE_CODES.messageTooBig, ERROR_MESSAGES.controlFrameTooLarge, 413)
      } else if (this.phase !== 'receiving') {
        this.fail(WS_CLOSE_CODES.protocolError, ERROR_MESSAGES.protocolViolation, 400)
      } else if (this.lacking < this.options.limits.maxBuffer) {
        this.fail(WS_CLOSE_CODES.policyViolation, ERROR_MESSAGES.sizeMismatch, 400)
      } else {
        this.fail(WS_CLOSE_CODES.messageTooBig, ERROR_MESSAGES.bufferExceeded, 413)
      }
    } else if (code === 'WS_ERR_INVALID_UTF8') {
      this.fail(WS_CLOSE_CODES.unsupportedData, ERROR_MESSAGES.unsupportedFrame, 400)
    } else {
      this.fail(WS_CLOSE_CODES.protocolError, ERROR_MESSAGES.protocolViolation, 400)
    }
  }

  /** Refusals keep the HTTP status of the same refusal; anything else is an internal error. */
  private failWith(error: unknown): void {
    if (this.phase === 'ended') return
    if (error instanceof HttpError && error.status < 500) {
      return this.fail(WS_CLOSE_CODES.policyViolation, error.message, error.status, error.details)
    }
    this.options.logger.error('upload socket failed', error)
    this.fail(WS_CLOSE_CODES.internalError, ERROR_MESSAGES.internalError, 500)
  }

  /**
   * Aborts or suspends the session (docs/api.md, what ends a session). A commit under way is left
   * alone: aborting its blob would race the rename that makes it visible; `finish` revokes it.
   */
  private endSession(end: 'abort' | 'suspend', session = this.upload?.session): void {
    if (!session || session.state === 'committing') return
    session[end]().catch((error: unknown) => {
      const doing = end === 'abort' ? 'discarding' : 'suspending'
      this.options.logger.error(`${doing} an upload session failed`, error)
    })
  }

  /** A client's close with 1000 before `done` aborts; any other end of the socket suspends. */
  private onClose(code: number): void {
    clearTimeout(this.initTimer)
    this.progress?.stop()
    this.account.close()
    if (this.phase === 'ended') return
    this.phase = 'ended'
    this.endSession(code === WS_CLOSE_CODES.normal ? 'abort' : 'suspend')
  }
}
