/**
 * The multipart upload steps of the S3 store, written once for the blob writer (s3-writer.ts) and
 * the chunks of stored sessions (s3-chunks.ts), and what an SDK failure means to them. Imported
 * as `multipart`, so that `multipart.abort` reads apart from the callers' own abort.
 * May touch: the network (S3 multipart uploads).
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3'
import type { Readable } from 'node:stream'

/** One multipart upload: the object it writes and its UploadId. */
export interface Target {
  Bucket: string
  Key: string
  UploadId: string
}

export async function create(client: S3Client, bucket: string, key: string): Promise<Target> {
  const created = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }))
  if (!created.UploadId) throw new Error('CreateMultipartUpload returned no UploadId')
  return { Bucket: bucket, Key: key, UploadId: created.UploadId }
}

/**
 * Sends part `partNumber` of `length` bytes and answers its ETag. A streamed body needs the
 * known length (radosgw refuses a streamed body without one).
 */
export async function sendPart(
  client: S3Client,
  target: Target,
  partNumber: number,
  body: Readable | Buffer,
  length: number,
  options: { abortSignal?: AbortSignal } = {},
): Promise<string> {
  const sent = await client.send(
    new UploadPartCommand({ ...target, PartNumber: partNumber, Body: body, ContentLength: length }),
    options,
  )
  if (!sent.ETag) throw new Error('UploadPart returned no ETag')
  return sent.ETag
}

/** Completes the upload from `parts`, which must be in order; the object exists after it. */
export async function complete(client: S3Client, target: Target, parts: CompletedPart[]) {
  await client.send(
    new CompleteMultipartUploadCommand({ ...target, MultipartUpload: { Parts: parts } }),
  )
}

/**
 * Aborts the upload and the parts it holds. One gone already (aborted by the cleanup job's
 * sweep, or never there) counts as aborted: nothing is left, as asked.
 */
export async function abort(client: S3Client, target: Target): Promise<void> {
  try {
    await client.send(new AbortMultipartUploadCommand(target))
  } catch (error) {
    if (!isNotFound(error)) throw error
  }
}

/** The HTTP status of an SDK failure; undefined when no answer came. */
function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode
}

/** A failure worth another attempt: no answer at all, a server error, or "slow down". */
export function isTransient(error: unknown): boolean {
  const status = statusOf(error)
  return status === undefined || status >= 500 || status === 429 || status === 408
}

export function isNotFound(error: unknown): boolean {
  const name = (error as { name?: string } | null)?.name
  return (
    name === 'NotFound' ||
    name === 'NoSuchBucket' ||
    name === 'NoSuchUpload' ||
    statusOf(error) === 404
  )
}
