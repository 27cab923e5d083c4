/**
 * The localStorage keys the page keeps its unfinished uploads under (docs/web.md, "Resuming
 * uploads"): one for a normal upload, one per request. Imports nothing, so that the end-to-end
 * suites read the same keys.
 */

export const RESUME_STORAGE_KEY = 'fileshare.unfinishedUpload'

/** The key of the unfinished upload into the request `requestId`. */
export function requestResumeKey(requestId: string): string {
  return `${RESUME_STORAGE_KEY}.request.${requestId}`
}
