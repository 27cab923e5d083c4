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

export interface DownloadOptions extends RecordCipherOption {
  signal?: AbortSignal
  /** Ciphertext bytes received so far and the total. */
  onProgress?: (progress: { receivedBytes: number; totalBytes: number }) => void
}

export interface DownloadResult {
  /** The plaintext; errors DECRYPT_FAILED or TRUNCATED when the ciphertext was tampered with. */
  stream: ReadableStream<Uint8Array>
  plainSize: number
  fileCount: number
}

function isPresigned(value: unknown): value is PresignedDownloadResponse {
  const v = value as Partial<PresignedDownloadResponse> | null
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.url === 'string' &&
    Number.isSafeInteger(v.size) &&
    Number.isSafeInteger(v.fileCount)
  )
}

function badAnswer(): ProtocolError {
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
): Promise<DownloadResult> {
  let body = response.body
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
  const stream = guardBody(body, size, options).pipeThrough(
    createDecryptStream(fileKey, { cipher: options.cipher }),
  )
  return { stream, plainSize: plain, fileCount }
}

/** Reports progress, and names a broken connection NETWORK (an abort keeps its reason). */
function guardBody(
  body: ReadableStream<Uint8Array>,
  totalBytes: number,
  options: DownloadOptions,
): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  let receivedBytes = 0
  options.onProgress?.({ receivedBytes, totalBytes })
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let result: ReadableStreamReadResult<Uint8Array>
      try {
        result = await reader.read()
      } catch (error) {
        throw options.signal?.aborted ? options.signal.reason : networkError(error)
      }
      if (result.done) {
        controller.close()
        return
      }
      receivedBytes += result.value.length
      options.onProgress?.({ receivedBytes, totalBytes })
      controller.enqueue(result.value)
    },
    cancel(reason) {
      return reader.cancel(reason)
    },
  })
}
