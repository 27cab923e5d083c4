import { describe, expect, it } from 'vitest'
import { ERROR_MESSAGES } from './errors.js'

describe('ERROR_MESSAGES', () => {
  it('spells every message of the spec exactly', () => {
    expect(ERROR_MESSAGES.invalidOrMissingAuthToken).toBe('Invalid or missing auth token')
    expect(ERROR_MESSAGES.uploadUnavailable).toBe('Upload expired or download limit reached')
    expect(ERROR_MESSAGES.invalidOrMissingOwnerToken).toBe('Invalid or missing owner token')
    expect(ERROR_MESSAGES.uploadNotFound).toBe('Upload not found')
    expect(ERROR_MESSAGES.fileTooLarge).toBe('File size exceeds maximum allowed size')
    expect(ERROR_MESSAGES.tooManyOutOfOrderChunks).toBe('Too many out-of-order chunks buffered')
    expect(ERROR_MESSAGES.sizeMismatch).toBe('Body size does not match declared content length')
    expect(ERROR_MESSAGES.metadataAlreadySet).toBe('Metadata already set')
    expect(ERROR_MESSAGES.invalidRequest).toBe('Invalid request')
    expect(ERROR_MESSAGES.noteTooLarge).toBe('Note content exceeds maximum size')
    expect(ERROR_MESSAGES.noteNotFound).toBe('Note not found')
    expect(ERROR_MESSAGES.noteExpired).toBe('Note has expired')
    expect(ERROR_MESSAGES.invalidAuthToken).toBe('Invalid auth token')
    expect(ERROR_MESSAGES.viewLimitReached).toBe('View limit reached')
    expect(ERROR_MESSAGES.noteNotPasswordProtected).toBe('Note is not password-protected')
    expect(ERROR_MESSAGES.invalidPassword).toBe('Invalid password')
    expect(ERROR_MESSAGES.invalidOwnerToken).toBe('Invalid owner token')
  })

  it('gives every case its own message, so a client can tell them apart', () => {
    const messages = Object.values(ERROR_MESSAGES)
    expect(new Set(messages).size).toBe(messages.length)
  })

  it('keeps messages short, single-line and without trailing punctuation', () => {
    for (const message of Object.values(ERROR_MESSAGES)) {
      expect(message.length).toBeLessThanOrEqual(60)
      expect(message).toMatch(/^[A-Z][^\n]*[^.\s]$/)
    }
  })
})
