/**
 * Plaintext ranges of a file (an upload or an inbox file) read without downloading all of it: one counted download asks for
 * a read grant and its first byte alone, then each plaintext range is fetched as the ciphertext
 * records that hold it (docs/api.md, Read grants), or on S3 from the presigned URL the download
 * answered, and opened record by record, each under the nonce of its index, so every byte handed
 * out is authenticated. Small reads go through a few cached records (an archive's directory is
 * read in many small pieces).
 */
import { recordNonce, webCryptoRecords, type RecordCipher } from '../crypto/stream.js'
import { decryptFailed, ProtocolError } from '../errors.js'
import { plainSize, recordCount, RECORD_SIZE } from '../sizes.js'
import { HEADERS } from '../wire/headers.js'
import { ERROR_MESSAGES } from '../wire/errors.js'
import { READ_GRANT_REQUEST } from '../wire/uploads.js'
import { ApiError, isApiError } from './api-error.js'
import { networkError, type ApiClient } from './api.js'
import { badAnswer, isPresigned } from './download.js'
import type { UnlockedFile } from './files.js'
import { fetchGrantedRange, uploadSource, type CountedSource } from './granted-range.js'
import { recordSpan, sealedRecordLength } from './plain-range.js'
/** Whole records kept for small reads. */
const CACHED_RECORDS = 4

/** The sealed bytes `from` to `to` (inclusive) of the ciphertext, as the server sends them. */
type CipherRange = (from: number, to: number) => Promise<ReadableStream<Uint8Array>>

export interface FileRangesOptions {
  signal?: AbortSignal
  cipher?: RecordCipher
  /**
   * Records one request of `stream` asks for at most; the next request goes out when the reader
   * has taken them. Unbounded by default (one request per stream). A reader that may stop early
   * (a media element, which drops a response when it seeks) sets a bound: its requests then
   * start at one record and double up to it, so a response dropped early fetched little ahead.
   */
  windowRecords?: number
}

export class FileRanges {
  readonly plainSize: number
  readonly fileCount: number
  private readonly records: number
  private readonly cache = new Map<number, Uint8Array>()

  constructor(
    private readonly fileKey: CryptoKey,
    private readonly fetchRange: CipherRange,
    readonly cipherSize: number,
    fileCount: number,
    /** When the grant lapses (milliseconds since the epoch), or null when the server did not say. */
    readonly grantExpiresAt: number | null,
    private readonly options: FileRangesOptions,
  ) {
    this.plainSize = plainSize(cipherSize)
    this.fileCount = fileCount
    this.records = recordCount(this.plainSize)
  }

  /** Plaintext bytes `start` up to `end` (exclusive) in one piece, for small reads. */
  async read(start: number, end: number): Promise<Uint8Array> {
    this.checkBounds(start, end)
    const out = new Uint8Array(end - start)
    for (let at = start; at < end;) {
      const index = Math.floor(at / RECORD_SIZE)
      const record = await this.cachedRecord(index)
      const from = at - index * RECORD_SIZE
      const part = Math.min(record.length - from, end - at)
      out.set(record.subarray(from, from + part), at - start)
      at += part
    }
    return out
  }

  /** Plaintext bytes `start` up to `end` (exclusive) as they are decrypted, record by record. */
  stream(start: number, end: number): ReadableStream<Uint8Array> {
    this.checkBounds(start, end)
    if (end === start) return new ReadableStream({ start: (controller) => controller.close() })
    const span = recordSpan(start, end, this.plainSize)
    const most = this.options.windowRecords ?? Infinity
    let ahead = most === Infinity ? Infinity : 1
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
    /** The last record the current request asks for. */
    let fetchedTo = span.first - 1
    let pending: Uint8Array = new Uint8Array(0)
    let index = span.first
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        if (index > span.last) return controller.close()
        if (index > fetchedTo) {
          fetchedTo = Math.min(span.last, index + ahead - 1)
          ahead = Math.min(ahead * 2, most)
          reader = (await this.fetchRecords(index, fetchedTo)).getReader()
        }
        const size = this.sealedLength(index)
        while (pending.length < size) {
          const { done, value } = await reader!.read().catch((error: unknown) => {
            throw this.options.signal?.aborted ? this.options.signal.reason : networkError(error)
          })
          if (done) throw new ProtocolError('NETWORK', 'The server sent a range short')
          pending = concat(pending, value)
        }
        const plain = await this.open(pending.slice(0, size), index)
        pending = pending.subarray(size)
        const base = index * RECORD_SIZE
        controller.enqueue(
          plain.subarray(Math.max(start - base, 0), Math.min(end - base, plain.length)),
        )
        index++
      },
      cancel: (reason) => reader?.cancel(reason),
    })
  }

  private checkBounds(start: number, end: number): void {
    if (!(Number.isSafeInteger(start) && Number.isSafeInteger(end))) throw outOfBounds()
    if (start < 0 || end < start || end > this.plainSize) throw outOfBounds()
  }

  private sealedLength(index: number): number {
    return sealedRecordLength(index, this.cipherSize)
  }

  private async cachedRecord(index: number): Promise<Uint8Array> {
    const cached = this.cache.get(index)
    if (cached) return cached
    const body = await this.fetchRecords(index, index)
    const sealed = new Uint8Array(await new Response(body).arrayBuffer())
    if (sealed.length !== this.sealedLength(index)) {
      throw new ProtocolError('NETWORK', 'The server sent a range short')
    }
    const plain = await this.open(sealed, index)
    if (this.cache.size >= CACHED_RECORDS) this.cache.delete(this.cache.keys().next().value!)
    this.cache.set(index, plain)
    return plain
  }

  private async open(sealed: Uint8Array, index: number): Promise<Uint8Array> {
    const cipher = this.options.cipher ?? webCryptoRecords
    const nonce = recordNonce(index, index === this.records - 1)
    try {
      return await cipher.open(this.fileKey, nonce, sealed)
    } catch (cause) {
      throw decryptFailed(cause)
    }
  }

  /** The sealed records `first` to `last` (inclusive). */
  private fetchRecords(first: number, last: number): Promise<ReadableStream<Uint8Array>> {
    const span = recordSpan(
      first * RECORD_SIZE,
      Math.min((last + 1) * RECORD_SIZE, this.plainSize),
      this.plainSize,
    )
    return this.fetchRange(span.cipherFrom, span.cipherTo)
  }
}

function outOfBounds(): ProtocolError {
  return new ProtocolError('BAD_INPUT', 'The range lies outside the file')
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

/**
 * Ranges from the presigned URL of a download on S3, which serves `Range` itself. A URL that has
 * expired (403) is reported as a lapsed grant, 410 `Read grant expired`, so callers handle one
 * lapse; a status other than 206 is refused, and the records check every byte.
 */
function presignedRanges(api: ApiClient, url: string, signal?: AbortSignal): CipherRange {
  return async (from, to) => {
    let response: Response
    try {
      response = await api.external(url, signal, { [HEADERS.range]: `bytes=${from}-${to}` })
    } catch (error) {
      if (!isApiError(error, 403)) throw error
      throw new ApiError(410, ERROR_MESSAGES.readGrantExpired, { cause: error })
    }
    if (response.status !== 206 || !response.body) {
      await response.body?.cancel().catch(() => undefined)
      throw new ProtocolError('NETWORK', 'The server answered a range with other bytes')
    }
    return response.body
  }
}

/** The ranges of an upload, opened with its counted download (`GET /api/download/:id`). */
export function openFileRanges(
  api: ApiClient,
  unlocked: UnlockedFile,
  options: FileRangesOptions = {},
): Promise<FileRanges> {
  const source = uploadSource(unlocked.id, unlocked.keys.authToken)
  return openCountedRanges(api, source, unlocked.keys.fileKey, options)
}

/**
 * Counts one download of the file with a read grant, asking for its first byte alone, and closes
 * the body unread: from then on its ranges come under the grant. On S3 the download answers a
 * presigned URL instead, whose ranges are fetched until it expires.
 */
export async function openCountedRanges(
  api: ApiClient,
  source: CountedSource,
  fileKey: CryptoKey,
  options: FileRangesOptions,
): Promise<FileRanges> {
  // The counted download asks for its first byte alone (docs/api.md, Read grants); a server that
  // ignores the range answers the whole body, which is closed unread.
  const headers = {
    ...source.auth,
    [HEADERS.readGrant]: READ_GRANT_REQUEST,
    [HEADERS.range]: 'bytes=0-0',
  }
  const { signal } = options
  const init = signal ? { headers, signal } : { headers }
  const response = await api.raw('GET', source.path, init)
  if ((response.headers.get(HEADERS.contentType) ?? '').startsWith('application/json')) {
    const answer: unknown = await response.json().catch(() => null)
    if (!isPresigned(answer)) throw badAnswer()
    const ranges = presignedRanges(api, answer.url, signal)
    return new FileRanges(fileKey, ranges, answer.size, answer.fileCount, null, options)
  }
  await response.body?.cancel().catch(() => undefined)
  const grant = response.headers.get(HEADERS.readGrant)
  const size = countedSize(response)
  const fileCount = Number(response.headers.get(HEADERS.fileCount) ?? '1')
  const expires = Number(response.headers.get(HEADERS.readGrantExpires))
  if (grant === null) {
    throw new ProtocolError(
      'BAD_INPUT',
      'This server hands out no read grant, so parts of a download cannot be fetched alone',
    )
  }
  if (!Number.isSafeInteger(size) || !Number.isSafeInteger(fileCount)) throw badAnswer()
  const ranges: CipherRange = (from, to) =>
    fetchGrantedRange(api, {
      source,
      grant,
      from,
      to,
      size,
      signal,
    })
  const grantExpiresAt = Number.isSafeInteger(expires) && expires > 0 ? expires : null
  return new FileRanges(fileKey, ranges, size, fileCount, grantExpiresAt, options)
}

/** The ciphertext's size: the total of a 206's `Content-Range`, or a 200's `Content-Length`. */
function countedSize(response: Response): number {
  if (response.status !== 206) return Number(response.headers.get(HEADERS.contentLength))
  const total = /^bytes 0-0\/(\d+)$/.exec(response.headers.get(HEADERS.contentRange) ?? '')
  return total ? Number(total[1]) : NaN
}
