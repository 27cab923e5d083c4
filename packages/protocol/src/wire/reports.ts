/**
 * Abuse reports: `POST /api/report/:id`, this project's route rather than the spec's
 * (docs/api.md, Abuse reports).
 */

/** The path of the report route for an upload, note or request id. */
export function reportPath(id: string): string {
  return `/api/report/${encodeURIComponent(id)}`
}

/** The longest reason accepted, in characters. */
export const REPORT_REASON_MAX_CHARS = 2000

/** The largest report body accepted, in bytes (a reason of multi-byte characters and a key). */
export const REPORT_BODY_MAX_BYTES = 16_384

/**
 * Body of `POST /api/report/:id`: the reporter's reason and, only if they choose, the link secret
 * (the fragment after `#`), so the operator can open the content.
 */
export interface ReportBody {
  reason: string
  key?: string
}

/** 201 of `POST /api/report/:id`, whether or not the id exists. */
export interface ReportResponse {
  ok: true
}
