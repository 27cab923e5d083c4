/** The caller's options reach the transports, and a named session reaches the caller as its state. */
import { describe, expect, it } from 'vitest'

import { uploadState, withCallerOptions } from './caller-upload.js'
import type { UploadCiphertextOptions, UploadSession } from './upload.js'

const UPLOAD: Pick<UploadCiphertextOptions, 'target' | 'size' | 'ciphertext'> = {
  target: { kind: 'file', declaration: {} as never },
  size: 42,
  ciphertext: () => new ReadableStream(),
}
const SESSION: UploadSession = { id: 'b6f1c2d4', transport: 'chunks', chunkSize: 1024 }

describe('withCallerOptions', () => {
  it('passes progress, cancellation and resume options on, and the state for the session', async () => {
    const onProgress = () => {}
    const signal = new AbortController().signal
    const states: unknown[] = []
    const options = withCallerOptions(
      UPLOAD,
      {
        onProgress,
        signal,
        resume: {
          retryForMs: 5000,
          keepOnAbort: true,
          onState: (state) => void states.push(state),
          onSealed: async () => {},
        },
      },
      (named) => ({ id: named.id, size: 42 }),
    )
    expect(options).toMatchObject({ ...UPLOAD, onProgress, signal })
    expect(options.resume).toMatchObject({ retryForMs: 5000, keepOnAbort: true })
    expect(options.resume).not.toHaveProperty('onState')
    expect(options.resume).not.toHaveProperty('onSealed')
    await options.resume!.onSession!(SESSION)
    expect(states).toEqual([{ id: 'b6f1c2d4', size: 42 }])
  })

  it('sets nothing the caller did not give', () => {
    const options = withCallerOptions(UPLOAD, {}, () => {
      throw new Error('no state without resuming')
    })
    expect(Object.keys(options).sort()).toEqual(['ciphertext', 'size', 'target'])
  })

  it('makes no state when the caller keeps none', async () => {
    let made = 0
    const options = withCallerOptions(UPLOAD, { resume: { retryForMs: 1 } }, () => ++made)
    await options.resume!.onSession!(SESSION)
    expect(made).toBe(0)
  })
})

describe('uploadState', () => {
  it('keeps the session, the salt as canonical base64url, and the size', () => {
    const salt = new Uint8Array(32).fill(0x3e)
    expect(uploadState(SESSION, salt, 42)).toEqual({
      session: SESSION,
      salt: 'Pj4-Pj4-Pj4-Pj4-Pj4-Pj4-Pj4-Pj4-Pj4-Pj4-Pj4',
      size: 42,
    })
  })
})
