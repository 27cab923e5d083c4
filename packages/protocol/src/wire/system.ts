/** Service status routes: `GET /api/health` and `GET /api/quota` (spec: Endpoints). */
import type { IsoTimestamp } from './common.js'

/** The `status` a healthy server reports; the value is this project's choice. */
export const HEALTH_STATUS_OK = 'ok'

/** 200 of `GET /api/health`. */
export interface HealthResponse {
  status: string
  /** The service's version (spec: Versioning). */
  version: string
  timestamp: IsoTimestamp
}

/**
 * 200 of `GET /api/quota`, the upload quota of the caller's IP; this body is this project's
 * choice. Every number is null when the quota is disabled.
 */
export type QuotaResponse =
  | {
      enabled: true
      /** Bytes allowed per window. */
      limitBytes: number
      usedBytes: number
      remainingBytes: number
      /** Length of the window in milliseconds. */
      windowMs: number
      /** When the window (and the daily key) rotates and the quota is full again. */
      resetsAt: IsoTimestamp
    }
  | {
      enabled: false
      limitBytes: null
      usedBytes: null
      remainingBytes: null
      windowMs: null
      resetsAt: null
    }

/** The `GET /api/quota` answer of a server without an upload quota. */
export const QUOTA_DISABLED: QuotaResponse = Object.freeze({
  enabled: false,
  limitBytes: null,
  usedBytes: null,
  remainingBytes: null,
  windowMs: null,
  resetsAt: null,
})
