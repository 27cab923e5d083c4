import { describe, expect, it } from 'vitest'

import { fingerprintChange, type SourceFingerprint } from './fingerprint.js'

const start: SourceFingerprint = {
  entries: [
    { path: 'photos/', size: 0, mtimeMs: 1000, mode: 0o40755 },
    { path: 'photos/a.jpg', size: 10, mtimeMs: 2000, mode: 0o100644 },
  ],
  cipherSize: 500,
  utcOffsetMinutes: 60,
}

function changedBy(change: (f: SourceFingerprint) => void): SourceFingerprint {
  const copy = structuredClone(start)
  change(copy)
  return copy
}

describe('fingerprintChange', () => {
  it('finds nothing when nothing changed', () => {
    expect(fingerprintChange(start, structuredClone(start))).toBeUndefined()
  })

  // Security: any change to the plaintext's sources refuses a resume, so no record is sealed
  // again under its used nonce over other plaintext.
  it.each([
    ['a size', (f: SourceFingerprint) => (f.entries[1]!.size = 11)],
    ['a modification time', (f: SourceFingerprint) => (f.entries[1]!.mtimeMs = 2001)],
    ['a mode', (f: SourceFingerprint) => (f.entries[1]!.mode = 0o100755)],
  ])('names the path whose %s changed', (_, change) => {
    expect(fingerprintChange(start, changedBy(change))).toBe(
      'photos/a.jpg changed since the upload started; start a new upload',
    )
  })

  it('names a file added to a folder, and one removed', () => {
    const added = changedBy((f) => f.entries.push({ path: 'photos/b.jpg', size: 1, mtimeMs: 3 }))
    expect(fingerprintChange(start, added)).toMatch(/^photos\/b\.jpg changed/)
    const removed = changedBy((f) => f.entries.pop())
    expect(fingerprintChange(start, removed)).toMatch(/^photos\/a\.jpg changed/)
  })

  it('refuses another declared size or archive time zone', () => {
    expect(
      fingerprintChange(
        start,
        changedBy((f) => (f.cipherSize = 501)),
      ),
    ).toMatch(/changed/)
    expect(
      fingerprintChange(
        start,
        changedBy((f) => (f.utcOffsetMinutes = 0)),
      ),
    ).toMatch(/changed/)
  })
})
