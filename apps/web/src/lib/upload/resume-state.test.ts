import type { FileUploadState, RequestUploadState } from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import { filesUpload, type PickedEntry } from './entries'
import { RESUME_STORAGE_KEY } from './resume-keys'
import {
  FILE_UPLOAD_SLOT,
  clearResumeState,
  fingerprintOf,
  isLocked,
  loadResumeState,
  requestUploadSlot,
  resumeRefusal,
  saveResumeState,
  type FileResumeState,
  type RequestResumeState,
  type ResumeStorage,
} from './resume-state'

function memoryStorage(): ResumeStorage & { items: Map<string, string> } {
  const items = new Map<string, string>()
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  }
}

const picked: PickedEntry[] = [
  { path: 'photos/', size: 0, lastModified: 1_700_000_000_000 },
  { path: 'photos/a.jpg', size: 1200, lastModified: 1_700_000_001_000 },
  { path: 'photos/b.jpg', size: 3400, lastModified: 1_700_000_002_000 },
]

function stateOf(entries: PickedEntry[]): FileResumeState {
  const size = filesUpload(entries).encryptedBytes
  const upload: FileUploadState = {
    session: {
      id: '3f1c2a54-8f3e-4c1b-9b0a-0d6c1e2f3a4b',
      transport: 'ws',
      chunkSize: null,
    },
    secret: 'c2VjcmV0',
    salt: 'c2FsdA',
    size,
    ownerToken: 'b3duZXI',
  }
  return {
    version: 1,
    upload,
    fingerprint: fingerprintOf(entries, size, 60),
    expireSec: 86400,
    maxDownloads: 1,
    label: 'photos',
  }
}

describe('resume state', () => {
  it('is kept and read back as it was saved', () => {
    const storage = memoryStorage()
    const state = stateOf(picked)
    saveResumeState(storage, FILE_UPLOAD_SLOT, state)
    expect(loadResumeState(storage, FILE_UPLOAD_SLOT)).toEqual(state)
  })

  it('is gone once cleared', () => {
    const storage = memoryStorage()
    saveResumeState(storage, FILE_UPLOAD_SLOT, stateOf(picked))
    clearResumeState(storage, FILE_UPLOAD_SLOT)
    expect(loadResumeState(storage, FILE_UPLOAD_SLOT)).toBeNull()
    expect(storage.items.size).toBe(0)
  })

  it('drops a damaged or foreign value instead of resuming from it', () => {
    const storage = memoryStorage()
    storage.setItem(RESUME_STORAGE_KEY, '{"version":1,"upload":{}')
    expect(loadResumeState(storage, FILE_UPLOAD_SLOT)).toBeNull()
    storage.setItem(RESUME_STORAGE_KEY, JSON.stringify({ ...stateOf(picked), version: 2 }))
    expect(loadResumeState(storage, FILE_UPLOAD_SLOT)).toBeNull()
    expect(storage.items.has(RESUME_STORAGE_KEY)).toBe(false)
  })

  // Security: a password-protected upload keeps only what the password protects.
  it('keeps a password-protected upload without its secret or owner token, and no other', () => {
    const storage = memoryStorage()
    const open = stateOf(picked)
    const {
      secret: _secret,
      ownerToken: _owner,
      ...rest
    } = open.upload as {
      secret: string
      ownerToken: string
    }
    const passwordLock = { protectedSecret: 'cHJvdGVjdGVk', passwordSalt: 'c2FsdA' }
    const locked: FileResumeState = {
      ...open,
      upload: { ...rest, passwordLock } as FileUploadState,
    }
    saveResumeState(storage, FILE_UPLOAD_SLOT, locked)
    expect(storage.items.get(RESUME_STORAGE_KEY)).not.toMatch(/c2VjcmV0|b3duZXI/)
    expect(loadResumeState(storage, FILE_UPLOAD_SLOT)).toEqual(locked)
    expect(isLocked(locked)).toBe(true)
    expect(isLocked(open)).toBe(false)
    // A lock beside the secret, or a lock without its salt, is no state this page keeps.
    for (const upload of [
      { ...open.upload, passwordLock },
      { ...rest, passwordLock: { protectedSecret: 'cHJvdGVjdGVk' } },
    ]) {
      storage.setItem(RESUME_STORAGE_KEY, JSON.stringify({ ...open, upload }))
      expect(loadResumeState(storage, FILE_UPLOAD_SLOT)).toBeNull()
    }
  })

  it('accepts the same files picked again', () => {
    const again = picked.map((entry) => ({ ...entry }))
    expect(resumeRefusal(stateOf(picked), again)).toBeUndefined()
  })

  // A record index must never be sealed again over other plaintext: any change refuses.
  it.each([
    ['a size', (e: PickedEntry[]) => [e[0]!, { ...e[1]!, size: 1201 }, e[2]!]],
    ['a modification time', (e: PickedEntry[]) => [e[0]!, e[1]!, { ...e[2]!, lastModified: 1 }]],
    ['a name', (e: PickedEntry[]) => [e[0]!, { ...e[1]!, path: 'photos/c.jpg' }, e[2]!]],
    ['the order', (e: PickedEntry[]) => [e[0]!, e[2]!, e[1]!]],
    ['a missing file', (e: PickedEntry[]) => [e[0]!, e[1]!]],
  ])('refuses files that differ in %s', (_what, change) => {
    expect(resumeRefusal(stateOf(picked), change(picked))).toMatch(/changed since the upload/)
  })

  it('holds nothing where the storage is blocked, and fails nothing', () => {
    const blocked: ResumeStorage = {
      getItem: () => {
        throw new DOMException('blocked', 'SecurityError')
      },
      setItem: () => {
        throw new DOMException('full', 'QuotaExceededError')
      },
      removeItem: () => {
        throw new DOMException('blocked', 'SecurityError')
      },
    }
    expect(saveResumeState(blocked, FILE_UPLOAD_SLOT, stateOf(picked))).toBe(false)
    expect(loadResumeState(blocked, FILE_UPLOAD_SLOT)).toBeNull()
    expect(() => clearResumeState(blocked, FILE_UPLOAD_SLOT)).not.toThrow()
  })
})

const REQUEST_A = '0b9d4f6e-2c1a-4e8b-9f3d-5a7c6b8e1d2f'
const REQUEST_B = '7e2a1c9d-4b3f-4a6e-8d1c-2f5b9e7a3c4d'

function requestStateOf(requestId: string, uploadId: string): RequestResumeState {
  const size = filesUpload(picked).encryptedBytes
  const upload: RequestUploadState = {
    session: { id: uploadId, transport: 'chunks', chunkSize: 10_000_000 },
    secret: 'c2VjcmV0',
    salt: 'c2FsdA',
    size,
  }
  return {
    version: 1,
    upload,
    fingerprint: fingerprintOf(picked, size, -300),
    requestId,
    label: 'photos',
  }
}

describe('resume state of request uploads', () => {
  it('keeps one state per request, apart from the normal upload', () => {
    const storage = memoryStorage()
    const a = requestStateOf(REQUEST_A, '3f1c2a54-8f3e-4c1b-9b0a-0d6c1e2f3a4b')
    const b = requestStateOf(REQUEST_B, '5d2e3b65-9a4f-4d2c-8c1b-1e7d2f3a4b5c')
    saveResumeState(storage, requestUploadSlot(REQUEST_A), a)
    saveResumeState(storage, requestUploadSlot(REQUEST_B), b)
    saveResumeState(storage, FILE_UPLOAD_SLOT, stateOf(picked))
    expect(loadResumeState(storage, requestUploadSlot(REQUEST_A))).toEqual(a)
    expect(loadResumeState(storage, requestUploadSlot(REQUEST_B))).toEqual(b)
    clearResumeState(storage, requestUploadSlot(REQUEST_A))
    expect(loadResumeState(storage, requestUploadSlot(REQUEST_A))).toBeNull()
    expect(loadResumeState(storage, requestUploadSlot(REQUEST_B))).toEqual(b)
    expect(loadResumeState(storage, FILE_UPLOAD_SLOT)).toEqual(stateOf(picked))
  })

  // A state continues only the upload it was kept for: another request's is not resumed here.
  it('drops a state that names another request, or one without key material', () => {
    const storage = memoryStorage()
    const slot = requestUploadSlot(REQUEST_A)
    storage.setItem(slot.key, JSON.stringify(requestStateOf(REQUEST_B, REQUEST_B)))
    expect(loadResumeState(storage, slot)).toBeNull()
    const { secret: _secret, ...keyless } = requestStateOf(REQUEST_A, REQUEST_B).upload
    storage.setItem(
      slot.key,
      JSON.stringify({ ...requestStateOf(REQUEST_A, REQUEST_B), upload: keyless }),
    )
    expect(loadResumeState(storage, slot)).toBeNull()
    expect(storage.items.size).toBe(0)
  })

  it('refuses other files as the normal upload does', () => {
    const other = [picked[0]!, { ...picked[1]!, size: 1 }, picked[2]!]
    expect(resumeRefusal(requestStateOf(REQUEST_A, REQUEST_B), picked)).toBeUndefined()
    expect(resumeRefusal(requestStateOf(REQUEST_A, REQUEST_B), other)).toMatch(/changed since/)
  })
})
