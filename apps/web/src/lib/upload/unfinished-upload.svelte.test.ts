// @vitest-environment jsdom
// The page's own storage: the state is kept in the origin's localStorage.
import { ApiError, ProtocolError, type RequestUploadState } from '@fileshare/protocol'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { filesUpload, type PickedEntry } from './entries'
import { fingerprintOf, requestUploadSlot, type RequestResumeState } from './resume-state'
import { UnfinishedUpload } from './unfinished-upload.svelte'

const REQUEST = '0b9d4f6e-2c1a-4e8b-9f3d-5a7c6b8e1d2f'
const SLOT = requestUploadSlot(REQUEST)
const picked: PickedEntry[] = [{ path: 'a.bin', size: 5000, lastModified: 1_700_000_000_000 }]
const upload: RequestUploadState = {
  session: { id: '3f1c2a54-8f3e-4c1b-9b0a-0d6c1e2f3a4b', transport: 'ws', chunkSize: null },
  secret: 'c2VjcmV0',
  salt: 'c2FsdA',
  size: filesUpload(picked).encryptedBytes,
}
const stateOf = (state: RequestUploadState, utcOffsetMinutes = 0): RequestResumeState => ({
  version: 1,
  upload: state,
  fingerprint: fingerprintOf(picked, state.size, utcOffsetMinutes),
  requestId: REQUEST,
  label: 'a.bin',
})

beforeEach(() => {
  localStorage.clear()
})

/** Whether the origin's storage holds the state. */
const stored = () => localStorage.getItem(SLOT.key) !== null

/** An upload that the server has named, whose session `end` ends. */
function started(end = vi.fn(() => Promise.resolve())) {
  const unfinished = new UnfinishedUpload({ slot: SLOT, end })
  unfinished.begin()
  unfinished.follow({ kind: 'state', state: upload }, stateOf)
  return { unfinished, end }
}

const lost = () => new ProtocolError('NETWORK', 'the upload connection closed (1006)')
const signal = () => new AbortController().signal

describe('an unfinished upload', () => {
  it('is kept once named, offered again on the next visit, and forgotten once complete', () => {
    const { unfinished, end } = started()
    expect(stored()).toBe(true)
    const again = new UnfinishedUpload({ slot: SLOT, end })
    expect(again.kept).toEqual(stateOf(upload))
    unfinished.follow({ kind: 'lost' }, stateOf)
    expect(unfinished.connection).toBe('Connection lost, resuming…')
    unfinished.follow({ kind: 'resumed', event: { offset: 2_000_000, attempt: 1 } }, stateOf)
    expect(unfinished.connection).toBe('Resumed at 1.9\u00a0MiB.')
    unfinished.completed()
    expect(unfinished.kept).toBeNull()
    expect(unfinished.connection).toBeNull()
    expect(stored()).toBe(false)
    expect(end).not.toHaveBeenCalled()
  })

  it('stays resumable after a connection that stayed lost', () => {
    const { unfinished, end } = started()
    expect(unfinished.failed(lost(), signal(), false)).toBe('failed')
    expect(unfinished.kept).not.toBeNull()
    expect(stored()).toBe(true)
    expect(end).not.toHaveBeenCalled()
  })

  it('is forgotten and its session ended when cancelled', () => {
    const { unfinished, end } = started()
    const controller = new AbortController()
    controller.abort(new DOMException('Cancelled', 'AbortError'))
    expect(unfinished.failed(controller.signal.reason, controller.signal, false)).toBe('cancelled')
    expect(stored()).toBe(false)
    expect(end).toHaveBeenCalledWith(stateOf(upload))
  })

  it('says the server no longer has a resumed upload, and forgets it', () => {
    const { unfinished } = started()
    expect(unfinished.failed(new ApiError(404, 'Upload not found'), signal(), true)).toBe('gone')
    expect(unfinished.refused).toBe(true)
    expect(stored()).toBe(false)
  })

  it('stays resumable after a wrong password, to be resumed with the right one', () => {
    const { unfinished, end } = started()
    const wrong = new ProtocolError('WRONG_PASSWORD', 'Wrong password')
    expect(unfinished.failed(wrong, signal(), true)).toBe('failed')
    expect(unfinished.kept).not.toBeNull()
    expect(stored()).toBe(true)
    expect(end).not.toHaveBeenCalled()
  })

  it('is forgotten after a refusal', () => {
    const { unfinished } = started()
    const refusal = new ApiError(413, 'File too large')
    expect(unfinished.failed(refusal, signal(), false)).toBe('failed')
    expect(stored()).toBe(false)
  })

  it('refuses other files, and ends its session when given up', async () => {
    const { unfinished, end } = started(
      vi.fn(() => Promise.reject(new ApiError(403, 'This request is closed'))),
    )
    expect(unfinished.mismatch(picked)).toBeNull()
    expect(unfinished.mismatch([{ ...picked[0]!, lastModified: 1 }])).toMatch(/not the files/)
    expect(unfinished.refused).toBe(true)
    unfinished.discard()
    expect(stored()).toBe(false)
    expect(end).toHaveBeenCalledWith(stateOf(upload))
    // Said on the page: the session may still hold the request's slot.
    await vi.waitFor(() => expect(unfinished.endFailure).not.toBeNull())
  })

  it('takes an already ended session (404) as ended', async () => {
    const end = vi.fn(() => Promise.reject(new ApiError(404, 'Upload not found')))
    const { unfinished } = started(end)
    unfinished.discard()
    // A macrotask: every promise step of the end's handling has run by then.
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(end).toHaveBeenCalled()
    expect(unfinished.endFailure).toBeNull()
  })

  it('is ending while its session is being ended, and not after', async () => {
    let settle = () => {}
    const end = vi.fn(() => new Promise<void>((resolve) => (settle = resolve)))
    const { unfinished } = started(end)
    expect(unfinished.ending).toBe(false)
    unfinished.discard()
    expect(unfinished.kept).toBeNull()
    expect(unfinished.ending).toBe(true)
    settle()
    await vi.waitFor(() => expect(unfinished.ending).toBe(false))
  })

  it('runs a new upload: keeps its state once named, reports progress, forgets it once sent', async () => {
    const unfinished = new UnfinishedUpload({ slot: SLOT, end: vi.fn() })
    const progress = vi.fn()
    const outcome = await unfinished.run({
      entries: picked,
      from: null,
      label: 'a.bin',
      signal: signal(),
      onProgress: progress,
      keep: (kept) => ({ ...kept, requestId: REQUEST }),
      send: (files, options) => {
        options.onProgress?.({ kind: 'state', state: upload })
        expect(unfinished.kept).toEqual(stateOf(upload, files.utcOffsetMinutes))
        expect(stored()).toBe(true)
        options.onProgress?.({ sentBytes: 1, totalBytes: 2, transport: 'ws' })
        return Promise.resolve('sent')
      },
      resume: () => Promise.reject(new Error('not a resume')),
    })
    expect(outcome).toEqual({ sent: 'sent' })
    expect(progress).toHaveBeenCalledWith({ sentBytes: 1, totalBytes: 2, transport: 'ws' })
    expect(stored()).toBe(false)
  })

  it('runs a resume of the kept upload in the zone it began in, and keeps it when cut off', async () => {
    const { unfinished } = started()
    const from = { ...stateOf(upload), fingerprint: fingerprintOf(picked, upload.size, 120) }
    const resume = vi.fn(() => Promise.reject(lost()))
    const outcome = await unfinished.run({
      entries: picked,
      from,
      label: 'ignored',
      signal: signal(),
      onProgress: vi.fn(),
      keep: (kept) => ({ ...kept, requestId: REQUEST }),
      send: () => Promise.reject(new Error('not a new upload')),
      resume,
    })
    expect(resume).toHaveBeenCalledWith(
      { entries: picked, utcOffsetMinutes: 120 },
      upload,
      expect.anything(),
    )
    expect(outcome).toMatchObject({ end: 'failed' })
    expect(stored()).toBe(true)
  })
})
