/**
 * What the page keeps in the origin's localStorage so that an upload cut short by a reload or a
 * closed tab can continue (docs/web.md, "Resuming uploads"): the upload's session, credentials
 * and key material (of a password-protected upload only what the password protects), and the
 * fingerprint of the files it encrypts; the record tags that prove them are in seal-tags.ts. Kept from the moment the server
 * names the upload, cleared when it is done, cancelled or definitively refused. A normal upload
 * has one slot; each request has its own, so that uploads into two requests do not collide.
 */
import {
  fingerprintChange,
  isLockedFileUploadState,
  type FileUploadState,
  type RequestUploadState,
  type SourceFingerprint,
} from '@fileshare/protocol'

import { filesUpload, type PickedEntry } from './entries'
import { RESUME_STORAGE_KEY, requestResumeKey } from './resume-keys'

/** The storage the state lives in: `localStorage` on the page, a stand-in in tests. */
export type ResumeStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>

/** What every kept upload holds, whatever it goes into. */
/** What the kept state of every upload holds, whatever its kind. */
interface UploadStateBase {
  session: { id: string }
  size: number
}

export interface KeptUpload<U extends UploadStateBase = UploadStateBase> {
  version: 1
  /** What the protocol client needs to continue: session, secret, salt, size (and credentials). */
  upload: U
  /** The picked entries (paths, sizes, modification times, in order) the upload encrypts. */
  fingerprint: SourceFingerprint
  /** The names shown when the page offers to resume. */
  label: string
}

/** A normal upload's state: its owner token is in `upload`. */
export interface FileResumeState extends KeptUpload<FileUploadState> {
  expireSec: number
  maxDownloads: number
}

/** A request upload's state: its credential is the session id under `requestId`. */
export interface RequestResumeState extends KeptUpload<RequestUploadState> {
  requestId: string
}

/** Where one kind of kept upload lives, and how a stored value is recognised as one. */
export interface ResumeSlot<S extends KeptUpload> {
  key: string
  holds: (value: unknown) => value is S
}

export const FILE_UPLOAD_SLOT: ResumeSlot<FileResumeState> = {
  key: RESUME_STORAGE_KEY,
  holds: (value): value is FileResumeState => {
    const state = value as Partial<FileResumeState>
    return (
      isKeptUpload(value) &&
      typeof state.expireSec === 'number' &&
      typeof state.maxDownloads === 'number' &&
      (holdsSecret(state.upload) || holdsPasswordLock(state.upload))
    )
  },
}

/** The slot of uploads into the request `requestId`. */
export function requestUploadSlot(requestId: string): ResumeSlot<RequestResumeState> {
  return {
    key: requestResumeKey(requestId),
    holds: (value): value is RequestResumeState =>
      isKeptUpload(value) &&
      (value as { requestId?: unknown }).requestId === requestId &&
      typeof (value as { upload: { secret?: unknown } }).upload.secret === 'string',
  }
}

/**
 * Whether a kept file upload is password-protected: it holds only what the password protects,
 * and resuming it takes the password again.
 */
export function isLocked(state: KeptUpload<FileUploadState>): boolean {
  return isLockedFileUploadState(state.upload)
}

/** An upload without a password keeps its secret and its owner token. */
function holdsSecret(upload: unknown): boolean {
  const fields = upload as { secret?: unknown; ownerToken?: unknown; passwordLock?: unknown }
  return (
    typeof fields.secret === 'string' &&
    typeof fields.ownerToken === 'string' &&
    fields.passwordLock === undefined
  )
}

/** A password-protected one keeps the protected secret and the password salt, and neither. */
function holdsPasswordLock(upload: unknown): boolean {
  const fields = upload as { secret?: unknown; ownerToken?: unknown; passwordLock?: unknown }
  const lock = fields.passwordLock as { protectedSecret?: unknown; passwordSalt?: unknown } | null
  return (
    typeof lock === 'object' &&
    lock !== null &&
    typeof lock.protectedSecret === 'string' &&
    typeof lock.passwordSalt === 'string' &&
    fields.secret === undefined &&
    fields.ownerToken === undefined
  )
}

/**
 * The fingerprint of the picked entries: every path with its size and modification time in the
 * order they are sent, the ciphertext size, and the fixed zone an archive's times are written in.
 */
export function fingerprintOf(
  entries: readonly PickedEntry[],
  cipherSize: number,
  utcOffsetMinutes: number,
): SourceFingerprint {
  return {
    entries: entries.map((e) => ({ path: e.path, size: e.size, mtimeMs: e.lastModified })),
    cipherSize,
    utcOffsetMinutes,
  }
}

/**
 * The zone (minutes east of UTC) an upload's archive times are written in: the one the kept
 * upload `from` began in, so that a resume writes the same bytes, or this device's for a new one.
 */
export function archiveZoneOf(from: KeptUpload | null): number {
  return from ? (from.fingerprint.utcOffsetMinutes ?? 0) : -new Date().getTimezoneOffset()
}

/**
 * Why `entries` cannot continue the kept upload (a sentence naming the first difference), or
 * undefined when they are the files it began with.
 */
export function resumeRefusal(
  state: KeptUpload,
  entries: readonly PickedEntry[],
): string | undefined {
  const size = filesUpload(entries).encryptedBytes
  const now = fingerprintOf(entries, size, state.fingerprint.utcOffsetMinutes ?? 0)
  return fingerprintChange(state.fingerprint, now)
}

/**
 * Keeps `state` in `slot`; false when the storage refuses it (blocked, or full): the upload then
 * goes on, resumable while the page stays open but not after a reload.
 */
export function saveResumeState<S extends KeptUpload>(
  storage: ResumeStorage,
  slot: ResumeSlot<S>,
  state: S,
): boolean {
  try {
    storage.setItem(slot.key, JSON.stringify(state))
    return true
  } catch {
    return false
  }
}

/**
 * The state kept in `slot`; a value of another shape (an older version, a damaged entry) is
 * dropped, and storage the page may not read (blocked by the browser's settings) holds nothing.
 */
export function loadResumeState<S extends KeptUpload>(
  storage: ResumeStorage,
  slot: ResumeSlot<S>,
): S | null {
  let text: string | null
  try {
    text = storage.getItem(slot.key)
  } catch {
    return null
  }
  if (text === null) return null
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    value = null
  }
  if (slot.holds(value)) return value
  clearResumeState(storage, slot)
  return null
}

export function clearResumeState(storage: ResumeStorage, slot: ResumeSlot<KeptUpload>): void {
  try {
    storage.removeItem(slot.key)
  } catch {
    // Storage the page may not write holds nothing of this upload either.
  }
}

/** The origin's localStorage, or a storage that refuses everything where reading it throws. */
export function originStorage(): ResumeStorage {
  try {
    return localStorage
  } catch {
    return REFUSING_STORAGE
  }
}

const refuse = (): never => {
  throw new DOMException('Storage is blocked', 'SecurityError')
}
const REFUSING_STORAGE: ResumeStorage = { getItem: refuse, setItem: refuse, removeItem: refuse }

/** The fields every kept upload has, of the types they must have. */
function isKeptUpload(value: unknown): value is KeptUpload {
  if (typeof value !== 'object' || value === null) return false
  const state = value as Partial<KeptUpload>
  const upload = state.upload as Partial<RequestUploadState> | null | undefined
  const fingerprint = state.fingerprint
  return (
    state.version === 1 &&
    typeof state.label === 'string' &&
    typeof upload === 'object' &&
    upload !== null &&
    typeof upload.session?.id === 'string' &&
    typeof upload.salt === 'string' &&
    typeof upload.size === 'number' &&
    typeof fingerprint === 'object' &&
    fingerprint !== null &&
    Array.isArray(fingerprint.entries) &&
    typeof fingerprint.cipherSize === 'number'
  )
}
