/**
 * Upload metadata: the names, types and sizes of what an upload holds, encrypted with the
 * upload's metadata key and padded to whole KiB so that its length does not reveal the names.
 */
import { fromUtf8, utf8 } from '../encoding.js'
import { decryptFailed, ProtocolError } from '../errors.js'
import { REQUEST_META_MAX_BYTES } from '../wire/limits.js'
import { isUuid } from '../validate.js'
import { LABELS } from './labels.js'
import { pad, unpad } from './padding.js'
import { open, seal, type Sealed } from './sealed.js'

export const METADATA_BLOCK = 1024

export interface FileEntry {
  /** Path inside the upload, `/`-separated for archive entries. */
  name: string
  /** Media type as the client knows it; empty when unknown. */
  type: string
  /** Plaintext size in bytes. */
  size: number
}

export interface FileMetadata {
  /** True when the payload is a ZIP archive packed by the client. */
  archive: boolean
  /** What the payload holds: the one file, or the archive's entries. */
  files: FileEntry[]
  /** Set on an upload into a request that carries the sender's note rather than files. */
  kind?: 'files' | 'note'
  /** On a sender's note: the id of the files upload it was sent with, so the inbox shows them as one. */
  with?: string
}

/** Whether an archive entry is a folder (its name ends in `/`): it keeps an empty folder, no file. */
export function isFolderEntry(entry: Pick<FileEntry, 'name'>): boolean {
  return entry.name.endsWith('/')
}

/** The files an upload holds, without the entries that only name folders. */
export function filesOf(metadata: Pick<FileMetadata, 'files'>): FileEntry[] {
  return metadata.files.filter((entry) => !isFolderEntry(entry))
}

export async function encryptMetadata(metaKey: CryptoKey, metadata: FileMetadata): Promise<Sealed> {
  checkMetadata(metadata, 'BAD_INPUT')
  const padded = pad(utf8(JSON.stringify(metadata)), METADATA_BLOCK)
  // The request routes accept at most this much; one limit for every upload keeps them alike.
  if (padded.length + 16 > REQUEST_META_MAX_BYTES) {
    throw new ProtocolError('BAD_INPUT', 'The file list is too long to store as metadata')
  }
  return seal(metaKey, padded, LABELS.uploadMetaAad)
}

export async function decryptMetadata(metaKey: CryptoKey, sealed: Sealed): Promise<FileMetadata> {
  const padded = await open(metaKey, sealed, LABELS.uploadMetaAad)
  let parsed: unknown
  try {
    parsed = JSON.parse(fromUtf8(unpad(padded, METADATA_BLOCK)))
  } catch (cause) {
    throw decryptFailed(cause)
  }
  checkMetadata(parsed, 'DECRYPT_FAILED')
  return parsed
}

function checkMetadata(
  value: unknown,
  code: 'BAD_INPUT' | 'DECRYPT_FAILED',
): asserts value is FileMetadata {
  const fail = () =>
    code === 'DECRYPT_FAILED' ? decryptFailed() : new ProtocolError(code, 'Malformed file metadata')
  if (typeof value !== 'object' || value === null) throw fail()
  const meta = value as Record<string, unknown>
  if (typeof meta.archive !== 'boolean' || !Array.isArray(meta.files) || meta.files.length === 0) {
    throw fail()
  }
  if (meta.kind !== undefined && meta.kind !== 'files' && meta.kind !== 'note') throw fail()
  if (meta.with !== undefined && (meta.kind !== 'note' || !isUuid(meta.with))) throw fail()
  for (const entry of meta.files as unknown[]) {
    if (typeof entry !== 'object' || entry === null) throw fail()
    const file = entry as Record<string, unknown>
    if (typeof file.name !== 'string' || file.name.length === 0 || typeof file.type !== 'string') {
      throw fail()
    }
    if (typeof file.size !== 'number' || !Number.isSafeInteger(file.size) || file.size < 0) {
      throw fail()
    }
  }
}
