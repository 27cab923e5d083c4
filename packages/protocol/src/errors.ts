/**
 * The one error type of the protocol package. Callers branch on `code`; every failure to
 * authenticate ciphertext shares one deliberately generic message so that it reveals nothing.
 */

export type ProtocolErrorCode =
  /** A byte string is not in the exact encoding the field demands. */
  | 'BAD_ENCODING'
  /** Ciphertext failed authentication: wrong key, or tampered, reordered or spliced records. */
  | 'DECRYPT_FAILED'
  /** A stream ended early: a whole final record is missing. */
  | 'TRUNCATED'
  /** A share link is malformed. */
  | 'BAD_LINK'
  /** The format version byte is one this code does not know. */
  | 'UNSUPPORTED_VERSION'
  /** A password did not unlock the secret (the server refused the derived token). */
  | 'WRONG_PASSWORD'
  /** An argument is outside what the format allows (sizes, lengths, shapes). */
  | 'BAD_INPUT'
  /** The server could not be reached, or a connection broke before its answer was complete. */
  | 'NETWORK'
  /** A resumed upload read its source again and found other bytes than those it had sealed. */
  | 'SOURCE_CHANGED'

export const DECRYPT_FAILED_MESSAGE = 'Decryption failed: the data is corrupt or the key is wrong'

export class ProtocolError extends Error {
  readonly code: ProtocolErrorCode
  /** What the message names, for a caller that words it again (SOURCE_CHANGED: a file's name). */
  readonly subject: string | undefined

  constructor(
    code: ProtocolErrorCode,
    message: string,
    options?: { cause?: unknown; subject?: string | undefined },
  ) {
    super(message, options && 'cause' in options ? { cause: options.cause } : undefined)
    this.name = 'ProtocolError'
    this.code = code
    this.subject = options?.subject
  }
}

export function decryptFailed(cause?: unknown): ProtocolError {
  return new ProtocolError('DECRYPT_FAILED', DECRYPT_FAILED_MESSAGE, { cause })
}

export function isProtocolError(error: unknown, code?: ProtocolErrorCode): error is ProtocolError {
  return error instanceof ProtocolError && (code === undefined || error.code === code)
}
