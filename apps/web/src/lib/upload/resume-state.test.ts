import type { FileUploadState } from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import { filesUpload, type PickedEntry } from './entries'
import {
  RESUME_STORAGE_KEY,
  clearResumeState,
  fingerprintOf,
  loadResumeState,
  resumeRefusal,
  saveResumeState,
  type ResumeStorage,
  type WebResumeState,
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

function stateOf(entries: PickedEntry[]): WebResumeState {
  const size = filesUpload(entries).encryptedBytes
  const upload: FileUploadState = {
    session: {
      id: '3f1c2a54-8f3e-4c1b-9b0a-0d6c1e2f3a4b',
      transport: 'websocket',
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
    saveResumeState(storage, state)
    expect(loadResumeState(storage)).toEqual(state)
  })

  it('is gone once cleared', () => {
    const storage = memoryStorage()
    saveResumeState(storage, stateOf(picked))
    clearResumeState(storage)
    expect(loadResumeState(storage)).toBeNull()
    expect(storage.items.size).toBe(0)
  })

  it('drops a damaged or foreign value instead of resuming from it', () => {
    const storage = memoryStorage()
    storage.setItem(RESUME_STORAGE_KEY, '{"version":1,"upload":{}')
    expect(loadResumeState(storage)).toBeNull()
    storage.setItem(RESUME_STORAGE_KEY, JSON.stringify({ ...stateOf(picked), version: 2 }))
    expect(loadResumeState(storage)).toBeNull()
    expect(storage.items.has(RESUME_STORAGE_KEY)).toBe(false)
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
    expect(saveResumeState(blocked, stateOf(picked))).toBe(false)
    expect(loadResumeState(blocked)).toBeNull()
    expect(() => clearResumeState(blocked)).not.toThrow()
  })
})
