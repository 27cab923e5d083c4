/**
 * The limits an upload session held by this instance keeps to, whatever its transport and kind:
 * the largest chunk, the window of chunks held for their turn, the requests under way, the speed.
 *
 * May touch: nothing.
 */
import type { Config } from '../config.js'

/** A session that received nothing for this long is not waited for at shutdown. */
export const DRAIN_QUIET_MS = 5000

export interface SessionLimits {
  /** Largest chunk body in bytes. */
  maxChunkSize: number
  /** Chunks that may wait in memory for an earlier index. */
  maxBufferedChunks: number
  /** Chunk requests of one session under way at once; more are refused with 429. */
  maxChunksInFlight: number
  /** Bytes per second, 0 for none; the chunk routes delay their answers to hold it. */
  speedLimit: number
}

/** The limits of a session of either kind, from the config, with its own largest chunk. */
export function sessionLimits(
  config: Pick<Config, 'fileUploadConcurrentChunks' | 'fileUploadSpeedLimit'>,
  maxChunkSize: number,
): SessionLimits {
  return {
    maxChunkSize,
    maxBufferedChunks: config.fileUploadConcurrentChunks,
    // One more than clients send, so a retry may overlap an attempt the server still reads.
    maxChunksInFlight: config.fileUploadConcurrentChunks + 1,
    speedLimit: config.fileUploadSpeedLimit,
  }
}
