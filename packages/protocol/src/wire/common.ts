/** Field aliases and small shapes shared by every family of the wire format. */

/** A UUID string, lowercase 8-4-4-4-12 hex as the server generates it (spec: Encodings). */
export type Uuid = string

/** ISO 8601 UTC timestamp with milliseconds, as `Date.prototype.toISOString()` writes it. */
export type IsoTimestamp = string

/** Standard base64 with padding (RFC 4648 §4); `encryptedContent`, `encryptedMeta`, `nonce`. */
export type Base64 = string

/** base64url (RFC 4648 §5); tokens and salts of the file and note routes. */
export type Base64Url = string

/**
 * Canonical unpadded base64url of an exact byte length: every binary field of the `/api/request`
 * and `/api/inbox` routes (spec: Encodings and identifiers).
 */
export type CanonicalBase64Url = string

/** The only key derivation for passwords the server accepts (spec: Client-side cryptography). */
export const PASSWORD_ALGO = 'argon2id-v2'

export type PasswordAlgo = typeof PASSWORD_ALGO

/**
 * Password fields of uploads and notes in JSON: salt and algorithm are present exactly when
 * `hasPassword` is true (spec: File upload record, Note record).
 */
export type PasswordFields =
  | { hasPassword: true; passwordSalt: Base64Url; passwordAlgo: PasswordAlgo }
  | { hasPassword: false }

/** Answer of every route that succeeds without returning data. */
export interface OkResponse {
  ok: true
}

/** Answer that carries only the id of what was created or stored. */
export interface IdResponse {
  id: Uuid
}
