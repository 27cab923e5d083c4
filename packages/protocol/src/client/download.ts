/**
 * The download side shared by files and inbox uploads: the counted answer is either the
 * ciphertext itself or (S3) a presigned URL fetched without credentials; either way the bytes
 * are decrypted as they stream, and a broken connection surfaces as ProtocolError('NETWORK').
 */
import { createDecryptStream, type RecordCipherOption } from '../crypto/stream.js'
import { ProtocolError } from '../errors.js'
import { plainSize } from '../sizes.js'
import { HEADERS } from '../wire/headers.js'
import type { PresignedDownloadResponse } from '../wire/uploads.js'
import { networkError, type ApiClient } from './api.js'
import { resumingBody, type DownloadResumeOptions, type RangeOpener } from './download-resume.js'

export interface DownloadOptions extends RecordCipherOption {
  signal?: AbortSignal
  /** Ciphertext bytes received so far and the total. */
  onProgress?: (progress: { receivedBytes: number; totalBytes: number }) => void
  /**
   * Resuming a download that breaks off, under a read grant (docs/api.md, Read grants); only
   * `downloadFile` on a server that sends the bytes itself resumes.
   */
  resume?: DownloadResumeOptions
}

export interface DownloadResult {
  /** The plaintext; errors DECRYPT_FAILED or TRUNCATED when the ciphertext was tampered with. */
  stream: ReadableStream<Uint8Array>
  plainSize: number
  fileCount: number
}

/** Whether a counted download's JSON answer is the presigned URL of a download on S3. */
export function isPresigned(value: unknown): value is PresignedDownloadResponse {
  const v = value as Partial<PresignedDownloadResponse> | null
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.url === 'string' &&
    Number.isSafeInteger(v.size) &&
    Number.isSafeInteger(v.fileCount)
  )
}

export function badAnswer(): ProtocolError {
  return new ProtocolError('NETWORK', 'The server answered the download with something unexpected')
}

/**
 * Turns the answer of a counted download (`GET /api/download/:id`, `GET /api/inbox/:id/file/:uid`)
 * into the plaintext stream.
 */
export async function openDownload(
  api: ApiClient,
  response: Response,
  fileKey: CryptoKey,
  options: DownloadOptions,
  reopen: ((size: number) => RangeOpener) | null = null,
): Promise<DownloadResult> {
  let body = response.body
  let resumeFrom: RangeOpener | null = null
  let size: number
  let fileCount: number
  const type = response.headers.get(HEADERS.contentType) ?? ''
  if (type.startsWith('application/json')) {
    let answer: unknown
    try {
      answer = await response.json()
    } catch (cause) {
      if (options.signal?.aborted) throw options.signal.reason
      throw networkError(cause)
    }
    if (!isPresigned(answer)) throw badAnswer()
    size = answer.size
    fileCount = answer.fileCount
    const object = await api.external(answer.url, options.signal)
    body = object.body
  } else {
    size = Number(response.headers.get(HEADERS.contentLength))
    fileCount = Number(response.headers.get(HEADERS.fileCount) ?? '1')
    resumeFrom = reopen?.(size) ?? null
  }
  if (!body || !Number.isSafeInteger(size) || !Number.isSafeInteger(fileCount)) {
    await body?.cancel().catch(() => undefined)
    throw badAnswer()
  }
  let plain: number
  try {
    plain = plainSize(size)
  } catch (cause) {
    await body.cancel().catch(() => undefined)
    throw new ProtocolError('DECRYPT_FAILED', 'The download has a size no upload has', { cause })
  }
  const guarded = resumingBody(body, size, resumeFrom, options)
  const stream = guarded.pipeThrough(createDecryptStream(fileKey, { cipher: options.cipher }))
  return { stream, plainSize: plain, fileCount }
}
