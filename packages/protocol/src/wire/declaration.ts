/**
 * An upload's declaration (spec: POST /api/upload/init, WebSocket /api/upload/ws): what a client
 * states before its bytes, in its two spellings, the `headers` of an `init` frame and the `X-`
 * headers of the chunked init. One table maps each field to its header, so clients build either
 * spelling and the server reads both into the same header values. Pure; touches nothing.
 */
import { HEADERS, type HeaderName } from './headers.js'
import type { UploadWsInitHeaders } from './ws-frames.js'

/** The declaration as the `init` frame spells it; the HTTP init carries the same values. */
export type UploadDeclaration = UploadWsInitHeaders

/** Every field a declaration may hold, the password's included. */
export type DeclarationField = keyof UploadWsInitHeaders | 'passwordSalt' | 'passwordAlgo'

/** Each declaration field and the header that carries it over HTTP. */
export const DECLARATION_HEADERS = {
  authToken: HEADERS.authToken,
  ownerToken: HEADERS.ownerToken,
  salt: HEADERS.salt,
  maxDownloads: HEADERS.maxDownloads,
  expireSec: HEADERS.expireSec,
  fileCount: HEADERS.fileCount,
  contentLength: HEADERS.declaredContentLength,
  hasPassword: HEADERS.hasPassword,
  passwordSalt: HEADERS.passwordSalt,
  passwordAlgo: HEADERS.passwordAlgo,
} as const satisfies Record<DeclarationField, HeaderName>

/**
 * The HTTP headers of a declaration (`POST /api/upload/init`): the password's salt and algorithm
 * only when `hasPassword` is `true`, as the spec asks.
 */
export function declarationHeaders(declaration: UploadDeclaration): Record<string, string> {
  const headers: Record<string, string> = {}
  const fields = declaration as Partial<Record<DeclarationField, string>>
  for (const [field, header] of Object.entries(DECLARATION_HEADERS)) {
    const value = fields[field as DeclarationField]
    const passwordOnly = field === 'passwordSalt' || field === 'passwordAlgo'
    if (value === undefined || (passwordOnly && declaration.hasPassword !== 'true')) continue
    headers[header] = value
  }
  return headers
}

/**
 * The declaration in an `init` frame's `headers`, keyed by the received names of the HTTP headers
 * that carry it, so one check serves both transports and names a field the same way. A value that
 * is not a string counts as missing, as a header's value is always one.
 */
export function receivedDeclarationHeaders(frameHeaders: unknown): Record<string, string> {
  const given = typeof frameHeaders === 'object' && frameHeaders !== null ? frameHeaders : {}
  const values: Record<string, string> = {}
  for (const [field, header] of Object.entries(DECLARATION_HEADERS)) {
    const value = (given as Record<string, unknown>)[field]
    if (typeof value === 'string') values[header.toLowerCase()] = value
  }
  return values
}
