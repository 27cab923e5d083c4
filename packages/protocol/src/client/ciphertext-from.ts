/**
 * The ciphertext of a payload from any byte offset, for a resumed upload: the record holding
 * the offset is sealed again (same key, same index, same plaintext, so the same bytes) and the
 * bytes before the offset within it are dropped. docs/crypto.md, "Resuming".
 */
import { ProtocolError } from '../errors.js'
import { createEncryptStream, type RecordCipherOption } from '../crypto/stream.js'
import { encryptedSize, RECORD_SIZE, RECORD_TAG_SIZE, recordCount } from '../sizes.js'
import { dropBytes, exactSize, type PayloadSource } from './source.js'

export interface CiphertextFromOptions extends RecordCipherOption {
  /** Plaintext bytes per record; only tests change it. */
  recordSize?: number
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
  const lastIndex = recordCount(source.size, recordSize) - 1
  return (offset) => {
    if (!Number.isSafeInteger(offset) || offset < 0 || offset > total) {
      throw new ProtocolError('BAD_INPUT', `No ciphertext offset ${offset} in ${total} bytes`)
    }
    // The end of a payload of whole records lies past its last record: start at that record.
    const index = Math.min(Math.floor(offset / sealedRecord), lastIndex)
    const encrypt = createEncryptStream(fileKey, {
      cipher: options.cipher,
      recordSize,
      startIndex: index,
    })
    const sealed = exactSize(source, index * recordSize).pipeThrough(encrypt)
    const skip = offset - index * sealedRecord
    return skip === 0 ? sealed : sealed.pipeThrough(dropBytes(skip))
  }
}

/** Refuses a source whose ciphertext would not be the size an unfinished upload declared. */
export function checkResumedSize(source: PayloadSource, declared: number): void {
  if (encryptedSize(source.size) !== declared) {
    throw new ProtocolError('BAD_INPUT', 'The data is not the size the unfinished upload declared')
  }
}
