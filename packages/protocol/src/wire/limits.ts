/**
 * The spec's fixed sizes and limits, in bytes unless the name says otherwise (spec: Resources,
 * Limits). Limits set by server variables (`FILE_MAX_SIZE`, …) are published by `/api/config`.
 */

/** An upload salt decodes to 16 or 32 bytes. */
export const UPLOAD_SALT_BYTES = [16, 32] as const
/** An upload's auth and owner tokens decode to 16 to 64 bytes; clients make 32. */
export const FILE_TOKEN_BYTES = [16, 64] as const
export const NOTE_SALT_BYTES = 16
export const NOTE_NONCE_BYTES = 12
export const PASSWORD_SALT_BYTES = 16
/** A note's decoded ciphertext may exceed `NOTE_MAX_SIZE` by this much. */
export const NOTE_OVERHEAD_BYTES = 256

export const REQUEST_VAULT_BYTES = 146
export const REQUEST_VAULT_NONCE_BYTES = 12
/** `inboxAuthToken`, `inboxOwnerToken`, `uploadToken`, and the headers that carry them. */
export const REQUEST_TOKEN_BYTES = 32
/** Salt of an upload into a request. */
export const REQUEST_SALT_BYTES = 32
export const REQUEST_WRAP_ENC_BYTES = 65
export const REQUEST_WRAP_CIPHERTEXT_BYTES = 48
export const REQUEST_META_MIN_BYTES = 17
export const REQUEST_META_MAX_BYTES = 75_000
export const REQUEST_META_NONCE_BYTES = 12

/** The brief ciphertext is a whole number of 1024-byte blocks plus the 16-byte AES-GCM tag. */
export const BRIEF_CIPHERTEXT_BLOCK_BYTES = 1024
export const BRIEF_CIPHERTEXT_TAG_BYTES = 16
export const BRIEF_CIPHERTEXT_MIN_BYTES = 1040
export const BRIEF_CIPHERTEXT_MAX_BYTES = 8208
export const BRIEF_NONCE_BYTES = 12

/** Body of `POST /api/request`: 16 KB. */
export const REQUEST_BODY_MAX_BYTES = 16 * 1024
/** Body of a request upload's finalize: 128 KB. */
export const REQUEST_FINALIZE_BODY_MAX_BYTES = 128 * 1024
/** One chunk of an upload into a request: 16 MiB; an empty chunk is refused too. */
export const REQUEST_CHUNK_MAX_BYTES = 16 * 1024 * 1024

/** Clients send chunked uploads in chunks of 10 MB. */
export const UPLOAD_CHUNK_BYTES = 10_000_000
/** Default of `FILE_UPLOAD_CONCURRENT_CHUNKS`. */
export const DEFAULT_CONCURRENT_CHUNKS = 3

/** An upload socket that sends no `init` within this long is closed with 1008. */
export const WS_INIT_TIMEOUT_MS = 10_000
/** A text (control) frame of an upload socket larger than this closes it with 1009. */
export const WS_CONTROL_FRAME_MAX_BYTES = 16 * 1024

/** A WebSocket without `ready` after this long falls back to chunked HTTP (10 s recommended). */
export const WS_HANDSHAKE_TIMEOUT_MS = 10_000
/**
 * A request upload over WebSocket ends when it delivers less than this (or less than the rest
 * of the upload) within `REQUEST_WS_PROGRESS_WINDOW_MS`.
 */
export const REQUEST_WS_MIN_PROGRESS_BYTES = 1024 * 1024
export const REQUEST_WS_PROGRESS_WINDOW_MS = 10 * 60 * 1000
/** A request upload over HTTP times out after one hour. */
export const REQUEST_HTTP_SESSION_TIMEOUT_MS = 60 * 60 * 1000
