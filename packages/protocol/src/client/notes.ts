/**
 * Notes from end to end: create, read the public info (no view counted), unlock (with a
 * password when it has one, no view counted), view (counts one view) and delete.
 */
import { fromBase64, toBase64, toBase64Url } from '../encoding.js'
import { deriveNoteKeys, generateNoteSalt, generateSecret, type NoteKeys } from '../crypto/keys.js'
import { buildLink, type FileLink } from '../crypto/link.js'
import { decryptNote, encryptNote } from '../crypto/note.js'
import { lockSecret } from '../crypto/password.js'
import { HEADERS } from '../wire/headers.js'
import type {
  CreateNoteBody,
  CreateNoteResponse,
  NoteContentType,
  NoteInfoResponse,
  NoteViewResponse,
} from '../wire/notes.js'
import { PATHS } from '../wire/routes.js'
import type { ApiClient } from './api.js'
import { unlockKeys } from './password-lock.js'
import { requireSameId, requireServerId } from './server-id.js'

export interface CreateNoteOptions {
  text: string
  contentType: NoteContentType
  /** One of the config's `noteViewOptions`. */
  maxViews: number
  /** One of the config's `noteExpireOptions`. */
  expireSec: number
  /** Locks the link with `argon2id-v2` when set and non-empty. */
  password?: string
}

export interface CreatedNote {
  id: string
  /** The note link with its key (`/n/<id>#…`). */
  link: string
  expiresAt: string
  ownerToken: string
}

export interface UnlockedNote {
  id: string
  keys: NoteKeys
  info: NoteInfoResponse
}

export interface ViewedNote {
  text: string
  contentType: NoteContentType
  viewCount: number
  maxViews: number
}

/** Encrypts and stores a note; 413 (too large) and 400 throw ApiError. */
export async function createNote(api: ApiClient, options: CreateNoteOptions): Promise<CreatedNote> {
  const secret = generateSecret()
  const salt = generateNoteSalt()
  const keys = await deriveNoteKeys(secret, salt)
  const sealed = await encryptNote(keys.contentKey, options.text, options.contentType)
  const lock = options.password ? await lockSecret(secret, options.password) : undefined
  const body: CreateNoteBody = {
    encryptedContent: toBase64(sealed.ciphertext),
    nonce: toBase64(sealed.nonce),
    salt: toBase64Url(salt),
    ownerToken: keys.ownerToken,
    authToken: keys.authToken,
    contentType: options.contentType,
    maxViews: options.maxViews,
    expireSec: options.expireSec,
    ...(lock
      ? {
          hasPassword: true as const,
          passwordSalt: toBase64Url(lock.passwordSalt),
          passwordAlgo: 'argon2id-v2' as const,
        }
      : { hasPassword: false as const }),
  }
  const created = await api.json<CreateNoteResponse>('POST', PATHS.note(), { json: body })
  const id = requireServerId(created.id, 'note')
  const link = buildLink(api.baseUrl, {
    kind: 'note',
    id,
    secret: lock ? lock.protectedSecret : secret,
    hasPassword: lock !== undefined,
  })
  return { id, link, expiresAt: created.expiresAt, ownerToken: keys.ownerToken }
}

/** `GET /api/note/:id`: the public info; no view is consumed. 404 and 410 throw ApiError. */
export async function inspectNote(api: ApiClient, link: FileLink): Promise<NoteInfoResponse> {
  const info = await api.json<NoteInfoResponse>('GET', PATHS.noteById(link.id))
  requireSameId(info.id, link.id, 'note')
  return info
}

/**
 * Derives the note's keys. With a password: Argon2id, then `POST /api/note/:id/password` (no
 * view consumed); a wrong password throws ProtocolError('WRONG_PASSWORD'), a lockout ApiError 429.
 * Without a password nothing is asked of the server: the view checks the token.
 */
export async function unlockNote(
  api: ApiClient,
  link: FileLink,
  info: NoteInfoResponse,
  password?: string,
): Promise<UnlockedNote> {
  const { keys } = await unlockKeys(link, info, password, deriveNoteKeys, (candidate) =>
    api.json('POST', PATHS.notePassword(link.id), { json: { authToken: candidate.authToken } }),
  )
  return { id: link.id, keys, info }
}

/** `POST /api/note/:id/view`: consumes one view and decrypts the text. */
export async function viewNote(api: ApiClient, unlocked: UnlockedNote): Promise<ViewedNote> {
  const view = await api.json<NoteViewResponse>('POST', PATHS.noteView(unlocked.id), {
    json: { authToken: unlocked.keys.authToken },
  })
  const text = await decryptNote(
    unlocked.keys.contentKey,
    { ciphertext: fromBase64(view.encryptedContent), nonce: fromBase64(view.nonce) },
    unlocked.info.contentType,
  )
  return {
    text,
    contentType: unlocked.info.contentType,
    viewCount: view.viewCount,
    maxViews: view.maxViews,
  }
}

/** `DELETE /api/note/:id` with the owner token. */
export async function deleteNote(api: ApiClient, id: string, ownerToken: string): Promise<void> {
  await api.json('DELETE', PATHS.noteById(id), { headers: { [HEADERS.ownerToken]: ownerToken } })
}
