/**
 * A download's ciphertext that outlives broken connections: when the body breaks off, the rest
 * is asked for again from the byte reached, under the read grant of the counted download
 * (docs/api.md, Read grants), so nothing is counted twice. Each record authenticates itself, so
 * bytes spliced from two answers decrypt only when they are the stored ones. Touches nothing but
 * the body it reads and the range requests its `reopen` makes.
 */
import { ProtocolError } from '../errors.js'
import { ERROR_MESSAGES } from '../wire/errors.js'
import { isApiError } from './api-error.js'
import { networkError } from './api.js'
import { isConnectionLoss, resumeDelay, sleepUnlessAborted } from './upload-status.js'

/** Resuming a download whose connection broke off. */
export interface DownloadResumeOptions {
  /**
   * How long one break is retried, in milliseconds, without a new byte getting through; 0 turns
   * resuming off (and no read grant is asked for).
   */
  retryForMs: number
  /** Called once per break, before the first wait. */
  onConnectionLost?: () => void
  /** Called when the rest of the download is coming again, from `offset`. */
  onResume?: (event: { offset: number; attempt: number }) => void
}

/**
 * The download broke off and could not be resumed because its read grant had lapsed: getting it
 * again counts a download. A NETWORK failure, with where it stopped.
 */
export class ReadGrantLapsed extends ProtocolError {
  constructor(
    readonly receivedBytes: number,
    readonly totalBytes: number,
    cause?: unknown,
  ) {
    super('NETWORK', `The download broke off and its read grant has expired`, { cause })
    this.name = 'ReadGrantLapsed'
  }
}

/** Opens the ciphertext again from byte `offset` to its end. */
export type RangeOpener = (offset: number) => Promise<ReadableStream<Uint8Array>>

export interface ResumingBodyOptions {
  signal?: AbortSignal | undefined
  resume?: DownloadResumeOptions | undefined
  onProgress?: ((progress: { receivedBytes: number; totalBytes: number }) => void) | undefined
}

/**
 * `body` with progress reported and a broken connection named NETWORK (an abort keeps its
 * reason); with `reopen`, a break is resumed from the byte reached as `resume` allows.
 */
export function resumingBody(
  body: ReadableStream<Uint8Array>,
  totalBytes: number,
  reopen: RangeOpener | null,
  options: ResumingBodyOptions,
): ReadableStream<Uint8Array> {
  const { signal, resume } = options
  let reader = body.getReader()
  let receivedBytes = 0
  let attempt = 0
  options.onProgress?.({ receivedBytes, totalBytes })

  /** A reader of the rest after `failure`, or the failure that ends the download. */
  const recover = async (failure: unknown): Promise<ReadableStreamDefaultReader<Uint8Array>> => {
    const outageStart = Date.now()
    const retryForMs = resume?.retryForMs ?? 0
    let error = failure
    let waits = 0
    for (;;) {
      if (reopen === null || !isConnectionLoss(error, signal)) throw error
      if (retryForMs <= 0 || Date.now() - outageStart > retryForMs) throw error
      if (waits === 0) resume?.onConnectionLost?.()
      await sleepUnlessAborted(resumeDelay(waits++), signal)
      if (signal?.aborted) throw signal.reason
      try {
        const rest = await reopen(receivedBytes)
        resume?.onResume?.({ offset: receivedBytes, attempt: ++attempt })
        return rest.getReader()
      } catch (reopenError) {
        if (isApiError(reopenError) && reopenError.message === ERROR_MESSAGES.readGrantExpired) {
          throw new ReadGrantLapsed(receivedBytes, totalBytes, reopenError)
        }
        if (signal?.aborted) throw signal.reason
        error = reopenError
      }
    }
  }

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        let result: ReadableStreamReadResult<Uint8Array>
        try {
          result = await reader.read()
        } catch (error) {
          if (signal?.aborted) throw signal.reason
          reader = await recover(networkError(error))
          continue
        }
        if (result.done) {
          controller.close()
          return
        }
        receivedBytes += result.value.length
        options.onProgress?.({ receivedBytes, totalBytes })
        controller.enqueue(result.value)
        return
      }
    },
    cancel(reason) {
      return reader.cancel(reason)
    },
  })
}
