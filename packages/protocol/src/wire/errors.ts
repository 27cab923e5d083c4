/**
 * Error bodies and their messages. The first group is the spec's list (spec: Errors), verbatim;
 * the rest are this project's messages for cases whose body text the spec leaves open.
 */

export const ERROR_MESSAGES = {
  invalidOrMissingAuthToken: 'Invalid or missing auth token',
  uploadUnavailable: 'Upload expired or download limit reached',
  invalidOrMissingOwnerToken: 'Invalid or missing owner token',
  uploadNotFound: 'Upload not found',
  fileTooLarge: 'File size exceeds maximum allowed size',
  tooManyOutOfOrderChunks: 'Too many out-of-order chunks buffered',
  sizeMismatch: 'Body size does not match declared content length',
  metadataAlreadySet: 'Metadata already set',
  invalidRequest: 'Invalid request',
  noteTooLarge: 'Note content exceeds maximum size',
  noteNotFound: 'Note not found',
  noteExpired: 'Note has expired',
  invalidAuthToken: 'Invalid auth token',
  viewLimitReached: 'View limit reached',
  noteNotPasswordProtected: 'Note is not password-protected',
  invalidPassword: 'Invalid password',
  invalidOwnerToken: 'Invalid owner token',

  rateLimited: 'Too many requests',
  quotaExhausted: 'Upload quota exhausted',
  quotaExceeded: 'Upload exceeds the remaining quota',
  loginRequired: 'Login required',
  fileRequestsDisabled: 'File requests are disabled',
  fileUploadsDisabled: 'File uploads are disabled',
  notesDisabled: 'Notes are disabled',
  requestNotFound: 'Request not found',
  requestFull: 'Request is full',
  requestClosed: 'Request is closed or expired',
  dailyRequestLimitReached: 'Daily request limit reached',
  notifyEmailLimitReached: 'Daily email notification limit reached',
  requestBodyTooLarge: 'Request body too large',
  finalizeBodyTooLarge: 'Finalize body too large',
  tooManyAttempts: 'Too many failed attempts, try again later',
  tooManyFiles: 'Too many files',
  uploadNotPasswordProtected: 'Upload is not password-protected',
  chunkTooLarge: 'Chunk too large',
  emptyChunk: 'Empty chunk',
  duplicateChunk: 'Chunk already received',
  tooManyChunksInFlight: 'Too many chunk requests in flight',
  initFrameTimeout: 'No init frame in time',
  controlFrameTooLarge: 'Control frame too large',
  uploadStalled: 'Upload made too little progress',
  shuttingDown: 'Server is shutting down',
  webSocketUploadDisabled: 'WebSocket upload is disabled',
  originNotAllowed: 'Origin not allowed',
  protocolViolation: 'Protocol violation',
  unsupportedFrame: 'Unsupported frame',
  bufferExceeded: 'Receive buffer exceeded',
  tooManyUploadSockets: 'Too many upload sockets from this address',
  invalidCliCallback: 'Invalid cli_callback',
  loginFailed: 'Login failed',
  providerUnreachable: 'Login provider unreachable',
  notFound: 'Not found',
  removedByOperator: 'Removed by the operator',
  reportReasonInvalid: 'Reason must be 1 to 2000 characters',
  reportKeyInvalid: 'Key must be the link secret',
  methodNotAllowed: 'Method not allowed',
  notJson: 'Content-Type must be application/json',
  internalError: 'Internal server error',
  invalidReadGrant: 'Invalid or missing read grant',
  readGrantExpired: 'Read grant expired',
  rangeNotSatisfiable: 'Range not satisfiable',
} as const

export type ErrorMessageKey = keyof typeof ERROR_MESSAGES
export type ErrorMessage = (typeof ERROR_MESSAGES)[ErrorMessageKey]

/**
 * Every error body: `{ error }`. A 400 from input validation adds `details`, naming each field or
 * header that is wrong (the spec requires it on note creation; the server gives it on every
 * validation refusal, docs/api.md).
 */
export interface ErrorResponse {
  error: string
  details?: Record<string, string>
  /**
   * `removed` on the 410 of an item the operator took down (docs/api.md, Takedown), so clients
   * can tell it from one that expired.
   */
  reason?: typeof TAKEDOWN_REASON
  /** The operator's words on a takedown, when given. */
  takedown?: string
}

/** The `reason` of a 410 for an item the operator took down. */
export const TAKEDOWN_REASON = 'removed'

/** Whether an error body says the operator took the item down. */
export function isTakedown(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    (body as { reason?: unknown }).reason === TAKEDOWN_REASON
  )
}
