/**
 * What a resumed upload checks before it encrypts anything again: that its sources are the ones
 * the upload began with. A record index must never be sealed again over other plaintext (the
 * same nonce under the same key), so any difference refuses the resume (docs/crypto.md,
 * "Resuming").
 */

export interface FingerprintEntry {
  /** The source's path (a file system path, or the entry's path inside the archive). */
  path: string
  size: number
  /** Modification time in milliseconds since the epoch. */
  mtimeMs: number
  /** `st_mode` where the platform has one. */
  mode?: number
}

export interface SourceFingerprint {
  /** Every source in the order it is sent (an archive's entries in archive order). */
  entries: FingerprintEntry[]
  /** The ciphertext size declared at the start. */
  cipherSize: number
  /** The fixed offset an archive's DOS times are written in (ZipOptions), when there is one. */
  utcOffsetMinutes?: number
}

/**
 * The first difference between the fingerprint an upload began with and the sources now, as a
 * sentence naming the path; undefined when they are the same.
 */
export function fingerprintChange(
  before: SourceFingerprint,
  now: SourceFingerprint,
): string | undefined {
  const count = Math.max(before.entries.length, now.entries.length)
  for (let i = 0; i < count; i++) {
    const a = before.entries[i]
    const b = now.entries[i]
    if (a && b && a.path === b.path) {
      if (a.size !== b.size || a.mtimeMs !== b.mtimeMs || a.mode !== b.mode) return changed(a.path)
      continue
    }
    // An entry added, removed or renamed: name the one that is new, else the one that is gone.
    return changed((b ?? a)!.path)
  }
  if (before.cipherSize !== now.cipherSize || before.utcOffsetMinutes !== now.utcOffsetMinutes) {
    return 'The data to send changed since the upload started; start a new upload'
  }
  return undefined
}

function changed(path: string): string {
  return `${path} changed since the upload started; start a new upload`
}
