/**
 * Every domain-separation label of the format, in one place. Each starts with the project name
 * and the format version, so a change of format can never reuse a key of the old one. Changing
 * any of these strings changes the bytes on the wire: the known-answer vectors will catch it.
 */

export const FORMAT_PREFIX = 'fileshare/v1'

export const LABELS = {
  /** HKDF info: the key of the streamed payload cipher of an upload. */
  uploadFileKey: `${FORMAT_PREFIX} upload file-key`,
  /** HKDF info: the key of an upload's encrypted metadata (names, types, sizes). */
  uploadMetaKey: `${FORMAT_PREFIX} upload meta-key`,
  /** HKDF info: the HMAC key from which the auth token is computed. */
  uploadAuthKey: `${FORMAT_PREFIX} upload auth-key`,
  /** HMAC message: auth token = HMAC-SHA256(auth key, this). */
  uploadAuthToken: `${FORMAT_PREFIX} upload auth-token`,
  /** HKDF info: the owner token bytes. */
  uploadOwnerToken: `${FORMAT_PREFIX} upload owner-token`,
  /** AES-GCM additional data of upload metadata. */
  uploadMetaAad: `${FORMAT_PREFIX} upload metadata`,

  noteContentKey: `${FORMAT_PREFIX} note content-key`,
  noteAuthKey: `${FORMAT_PREFIX} note auth-key`,
  noteAuthToken: `${FORMAT_PREFIX} note auth-token`,
  noteOwnerToken: `${FORMAT_PREFIX} note owner-token`,
  /** AES-GCM additional data of a note, followed by its content type. */
  noteContentAad: `${FORMAT_PREFIX} note content`,

  /** HKDF info from the upload link secret: the `X-Upload-Token` bytes. */
  requestUploadToken: `${FORMAT_PREFIX} request upload-token`,
  /** HKDF info from the upload link secret: the key of the brief. */
  requestBriefKey: `${FORMAT_PREFIX} request brief-key`,
  /** AES-GCM additional data of the brief. */
  requestBriefAad: `${FORMAT_PREFIX} request brief`,
  /** HKDF info from the inbox link secret: the `X-Inbox-Token` bytes. */
  requestInboxToken: `${FORMAT_PREFIX} request inbox-token`,
  /** HKDF info from the inbox link secret: the `X-Inbox-Owner-Token` bytes. */
  requestInboxOwnerToken: `${FORMAT_PREFIX} request inbox-owner-token`,
  /** HKDF info from the inbox link secret: the key of the vault. */
  requestVaultKey: `${FORMAT_PREFIX} request vault-key`,
  /** AES-GCM additional data of the vault, followed by SHA-256 of the brief. */
  requestVaultAad: `${FORMAT_PREFIX} request vault`,
  /** HPKE info of an upload's key wrap, followed by the request id. */
  requestWrapInfo: `${FORMAT_PREFIX} request wrap`,
} as const
