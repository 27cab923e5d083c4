/**
 * The ciphertext of a payload from any byte offset, for a resumed upload: the record holding
 * the offset is sealed again (same key, same index) and the bytes before the offset within it
 * are dropped. Every record sealed again must be the record sealed before: its tag is checked
 * against the one kept (SealedRecords) before any of it goes on, and a source whose bytes changed
 * fails with SOURCE_CHANGED naming what changed. docs/crypto.md, "Resuming".
 */
import { ProtocolError } from '../errors.js'
import { createEncryptStream, type RecordCipherOption } from '../crypto/stream.js'
import { encryptedSize, RECORD_SIZE, RECORD_TAG_SIZE, recordCount } from '../sizes.js'
import { admitRecords, SealedRecords } from './sealed-records.js'
import { dropBytes, exactSize, sourceNameAt, type PayloadSource } from './source.js'

export interface CiphertextFromOptions extends RecordCipherOption {
  /** Plaintext bytes per record; only tests change it. */
  recordSize?: number
  /**
   * The tags of the records sealed so far (and where new ones are kept); a new, empty set when
   * absent. Its record count must be the payload's.
   */
  sealed?: SealedRecords
}

/** A function answering the ciphertext of `source` under `fileKey` from a byte offset. */
export function ciphertextFrom(
  source: PayloadSource,
  fileKey: CryptoKey,
  options: CiphertextFromOptions = {},
): (offset: number) => ReadableStream<Uint8Array> {
  const recordSize = options.recordSize ?? RECORD_SIZE
  const sealedRecord = recordSize + RECORD_TAG_SIZE
  const total = encryptedSize(source.size, recordSize)
  const records = recordCount(source.size, recordSize)
  const lastIndex = records - 1
  const sealed = options.sealed ?? new SealedRecords(records)
  const changed = (index: number) => {
    const start = index * recordSize
    return sourceChanged(sourceNameAt(source, start, Math.min(start + recordSize, source.size)))
  }
  return (offset) => {
    if (!Number.isSafeInteger(offset) || offset < 0 || offset > total) {
      throw new ProtocolError('BAD_INPUT', `No ciphertext offset ${offset} in ${total} bytes`)
    }
    // The end of a payload of whole records lies past its last record: start at that record.
    let index = Math.min(Math.floor(offset / sealedRecord), lastIndex)
    // A resume that would seal nothing again starts one record earlier, which is compared and
    // dropped: every re-read meets a record sealed before, so a source overwritten meanwhile
    // is seen even when the server holds every record sent.
    if (index > 0 && index === sealed.count) index--
    const encrypt = createEncryptStream(fileKey, {
      cipher: options.cipher,
      recordSize,
      startIndex: index,
    })
    const checked = exactSize(source, index * recordSize)
      .pipeThrough(encrypt)
      .pipeThrough(admitRecords(sealed, index, changed))
    const skip = offset - index * sealedRecord
    return skip === 0 ? checked : checked.pipeThrough(dropBytes(skip))
  }
}

/** The failure of a resume whose source is not the bytes it sealed before. */
export function sourceChanged(name: string | undefined): ProtocolError {
  return new ProtocolError(
    'SOURCE_CHANGED',
    name === undefined
      ? 'The files changed while they were being sent; send them again'
      : `${name} changed while it was being sent; send it again`,
    { subject: name },
  )
}

/** Refuses a source whose ciphertext would not be the size an unfinished upload declared. */
export function checkResumedSize(source: PayloadSource, declared: number): void {
  if (encryptedSize(source.size) !== declared) {
    throw new ProtocolError('BAD_INPUT', 'The data is not the size the unfinished upload declared')
  }
}
