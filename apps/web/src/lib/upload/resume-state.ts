/**
 * What the page keeps in the origin's localStorage so that an upload cut short by a reload or a
 * closed tab can continue (docs/web.md, "Resuming uploads"): the upload's session, owner token
 * and key material, and the fingerprint of the files it encrypts. Kept from the moment the server
 * names the upload, cleared when it is done, cancelled or definitively refused.
 */
import {
  fingerprintChange,
  type FileUploadState,
  type SourceFingerprint,
} from '@fileshare/protocol'

import { filesUpload, type PickedEntry } from './entries'

/** The storage the state lives in: `localStorage` on the page, a stand-in in tests. */
export type ResumeStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>

export const RESUME_STORAGE_KEY = 'fileshare.unfinishedUpload'

export interface WebResumeState {
  version: 1
  /** What the protocol client needs to continue: session, secret, salt, owner token, size. */
  upload: FileUploadState
  /** The picked entries (paths, sizes, modification times, in order) the upload encrypts. */
  fingerprint: SourceFingerprint
  expireSec: number
  maxDownloads: number
  /** The names shown when the page offers to resume. */
  label: string
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
 * Why `entries` cannot continue the kept upload (a sentence naming the first difference), or
 * undefined when they are the files it began with.
 */
export function resumeRefusal(
  state: WebResumeState,
  entries: readonly PickedEntry[],
): string | undefined {
  const size = filesUpload(entries).encryptedBytes
  const now = fingerprintOf(entries, size, state.fingerprint.utcOffsetMinutes ?? 0)
  return fingerprintChange(state.fingerprint, now)
}

/**
 * Keeps `state`; false when the storage refuses it (blocked, or full): the upload then goes on,
 * resumable while the page stays open but not after a reload.
 */
export function saveResumeState(storage: ResumeStorage, state: WebResumeState): boolean {
  try {
    storage.setItem(RESUME_STORAGE_KEY, JSON.stringify(state))
    return true
  } catch {
    return false
  }
}

/**
 * The kept state; a value of another shape (an older version, a damaged entry) is dropped, and
 * storage the page may not read (blocked by the browser's settings) holds nothing.
 */
export function loadResumeState(storage: ResumeStorage): WebResumeState | null {
  let text: string | null
  try {
    text = storage.getItem(RESUME_STORAGE_KEY)
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
  if (isResumeState(value)) return value
  clearResumeState(storage)
  return null
}

export function clearResumeState(storage: ResumeStorage): void {
  try {
    storage.removeItem(RESUME_STORAGE_KEY)
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

function isResumeState(value: unknown): value is WebResumeState {
  if (typeof value !== 'object' || value === null) return false
  const state = value as Partial<WebResumeState>
  const upload = state.upload
  const fingerprint = state.fingerprint
  return (
    state.version === 1 &&
    typeof state.expireSec === 'number' &&
    typeof state.maxDownloads === 'number' &&
    typeof state.label === 'string' &&
    typeof upload === 'object' &&
    upload !== null &&
    typeof upload.session?.id === 'string' &&
    typeof upload.secret === 'string' &&
    typeof upload.salt === 'string' &&
    typeof upload.ownerToken === 'string' &&
    typeof upload.size === 'number' &&
    typeof fingerprint === 'object' &&
    fingerprint !== null &&
    Array.isArray(fingerprint.entries) &&
    typeof fingerprint.cipherSize === 'number'
  )
}
