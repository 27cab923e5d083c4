import { describe, expect, it } from 'vitest'
import { PUBLIC_KEY_SIZE, VAULT_PLAINTEXT_SIZE } from '../crypto/request.js'
import { isValidBriefLength } from '../validate.js'
import * as limits from './limits.js'

describe('limits', () => {
  it('holds the sizes the spec fixes', () => {
    expect(limits.UPLOAD_SALT_BYTES).toEqual([16, 32])
    expect(limits.NOTE_SALT_BYTES).toBe(16)
    expect(limits.NOTE_NONCE_BYTES).toBe(12)
    expect(limits.PASSWORD_SALT_BYTES).toBe(16)
    expect(limits.NOTE_OVERHEAD_BYTES).toBe(256)
    expect(limits.REQUEST_VAULT_BYTES).toBe(146)
    expect(limits.REQUEST_VAULT_NONCE_BYTES).toBe(12)
    expect(limits.REQUEST_TOKEN_BYTES).toBe(32)
    expect(limits.REQUEST_SALT_BYTES).toBe(32)
    expect(limits.REQUEST_WRAP_ENC_BYTES).toBe(65)
    expect(limits.REQUEST_WRAP_CIPHERTEXT_BYTES).toBe(48)
    expect(limits.REQUEST_META_MIN_BYTES).toBe(17)
    expect(limits.REQUEST_META_MAX_BYTES).toBe(75000)
    expect(limits.REQUEST_META_NONCE_BYTES).toBe(12)
    expect(limits.BRIEF_CIPHERTEXT_MIN_BYTES).toBe(1040)
    expect(limits.BRIEF_CIPHERTEXT_MAX_BYTES).toBe(8208)
    expect(limits.BRIEF_NONCE_BYTES).toBe(12)
    expect(limits.REQUEST_BODY_MAX_BYTES).toBe(16384)
    expect(limits.REQUEST_FINALIZE_BODY_MAX_BYTES).toBe(131072)
    expect(limits.REQUEST_CHUNK_MAX_BYTES).toBe(16777216)
    expect(limits.UPLOAD_CHUNK_BYTES).toBe(10000000)
    expect(limits.DEFAULT_CONCURRENT_CHUNKS).toBe(3)
    expect(limits.WS_HANDSHAKE_TIMEOUT_MS).toBe(10000)
    expect(limits.REQUEST_WS_MIN_PROGRESS_BYTES).toBe(1048576)
    expect(limits.REQUEST_WS_PROGRESS_WINDOW_MS).toBe(600000)
    expect(limits.REQUEST_HTTP_SESSION_TIMEOUT_MS).toBe(3600000)
  })

  it('agrees with the brief rule: both ends are whole blocks plus the tag', () => {
    expect(isValidBriefLength(limits.BRIEF_CIPHERTEXT_MIN_BYTES)).toBe(true)
    expect(isValidBriefLength(limits.BRIEF_CIPHERTEXT_MAX_BYTES)).toBe(true)
  })

  it('matches the layouts of the client cryptography', () => {
    expect(VAULT_PLAINTEXT_SIZE + 16).toBe(limits.REQUEST_VAULT_BYTES)
    expect(PUBLIC_KEY_SIZE).toBe(limits.REQUEST_WRAP_ENC_BYTES)
  })
})
