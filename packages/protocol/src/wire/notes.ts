/** Encrypted notes: creation, public info, view, password check and delete (spec: note routes). */
import type { Base64, Base64Url, IsoTimestamp, OkResponse, PasswordFields, Uuid } from './common.js'
import type { OwnerTokenHeaders } from './headers.js'

/** The content types a note may declare (spec: Note record). */
export const NOTE_CONTENT_TYPES = ['text', 'markdown', 'password', 'code', 'sshkey'] as const

export type NoteContentType = (typeof NOTE_CONTENT_TYPES)[number]

/**
 * Body of `POST /api/note`. `encryptedContent` decodes to at most `NOTE_MAX_SIZE` + 256 bytes,
 * `nonce` to 12 bytes, `salt` to 16 bytes; `passwordSalt` (16 bytes) and `passwordAlgo` are
 * present exactly when `hasPassword` is true.
 */
export type CreateNoteBody = {
  encryptedContent: Base64
  nonce: Base64
  salt: Base64Url
  ownerToken: Base64Url
  authToken: Base64Url
  contentType: NoteContentType
  /** One of `NOTE_VIEW_OPTIONS`. */
  maxViews: number
  /** One of `NOTE_EXPIRE_OPTIONS_SEC`. */
  expireSec: number
} & PasswordFields

/** 201 of `POST /api/note`. */
export interface CreateNoteResponse {
  id: Uuid
  expiresAt: IsoTimestamp
}

/**
 * Per-field reasons of a refused note body, keyed by field name; the spec says only "object",
 * the string values are this project's choice.
 */
export type NoteValidationDetails = Record<string, string>

/** 400 of `POST /api/note`: the one error body that carries `details` (spec: Errors). */
export interface NoteValidationErrorResponse {
  error: string
  details: NoteValidationDetails
}

/** 200 of `GET /api/note/:id`: never the ciphertext. */
export type NoteInfoResponse = {
  id: Uuid
  contentType: NoteContentType
  salt: Base64Url
  maxViews: number
  viewCount: number
  expiresAt: IsoTimestamp
  createdAt: IsoTimestamp
} & PasswordFields

/** Body of `POST /api/note/:id/view`. */
export interface NoteViewBody {
  authToken: Base64Url
}

/** 200 of `POST /api/note/:id/view`, after the view was counted. */
export interface NoteViewResponse {
  encryptedContent: Base64
  nonce: Base64
  viewCount: number
  maxViews: number
}

/** Body of `POST /api/note/:id/password`; it does not count a view. */
export interface NotePasswordBody {
  authToken: Base64Url
}

/** 200 of `POST /api/note/:id/password`. */
export type NotePasswordResponse = OkResponse

/** Headers of `DELETE /api/note/:id`. */
export type DeleteNoteHeaders = OwnerTokenHeaders

/** 200 of `DELETE /api/note/:id`. */
export type DeleteNoteResponse = OkResponse
