/**
 * Blobs as objects in an S3-compatible bucket. A writer streams into a multipart upload, one part
 * buffered at a time with at most MAX_PARTS_IN_FLIGHT part uploads running, so memory stays bounded
 * whatever the blob's size; a blob smaller than one part is sent at commit as one PutObject. An
 * object exists only once complete, and multipart uploads left by a crash are aborted by
 * `sweepUnfinished()` (spec: What the service does, 7).
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'

import type { S3Settings } from '../config.js'
import { assertBlobKey, type BlobStore, type BlobWriter, type StoredBlob } from './blob-store.js'

/** The S3 settings of the config (docs/configuration.md, S3), plus the clock. */
export interface S3StoreOptions extends S3Settings {
  /** The clock the age of unfinished multipart uploads is measured with; Date.now by default. */
  now?: () => number
}

/** Parts uploading at once per writer: enough to keep the link busy while the next part fills. */
const MAX_PARTS_IN_FLIGHT = 3

export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const
  readonly client: S3Client
  readonly bucket: string
  readonly downloadOrigin: string
  private readonly partSize: number
  private readonly expirySec: number
  private readonly now: () => number

  constructor(options: S3StoreOptions) {
    this.bucket = options.bucket
    this.partSize = options.partSize
    this.expirySec = options.presignedUrlExpirySec
    this.now = options.now ?? Date.now
    const endpoint = new URL(options.endpoint)
    // Virtual-hosted addressing puts the bucket in the host name of every presigned URL.
    if (!options.forcePathStyle) endpoint.hostname = `${options.bucket}.${endpoint.hostname}`
    this.downloadOrigin = endpoint.origin
    this.client = new S3Client({
      endpoint: options.endpoint,
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      credentials: {
        accessKeyId: options.accessKeyId,
        secretAccessKey: options.secretAccessKey,
      },
      // Checksums only where S3 demands them: the default CRC32 trailers are not understood by
      // every S3-compatible server (radosgw 16 among them), and TLS plus the GCM tags of the
      // ciphertext already guard the bytes.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    })
    // SigV4 over plain HTTP would hash every part's body (a second pass over each byte, on the
    // cores the upload needs); the signature still covers the request and its headers, and the
    // ciphertext carries its own GCM tags, so the body is sent unsigned as over HTTPS.
    this.client.middlewareStack.add(
      (next) => async (args) => {
        const { request } = args as { request: { headers?: Record<string, string> } }
        if (request.headers) request.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD'
        return next(args)
      },
      { step: 'build', name: 'fileshareUnsignedPayload' },
    )
  }

  /** Creates the bucket when it does not exist yet, so a fresh S3 server needs no manual step. */
  async ensureBucket(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }))
    } catch (error) {
      if (!isNotFound(error)) throw error
      await this.client.send(new CreateBucketCommand({ Bucket: this.bucket }))
    }
  }

  async create(key: string): Promise<BlobWriter> {
    assertBlobKey(key)
    return new S3Writer(this.client, this.bucket, key, this.partSize)
  }

  async read(key: string): Promise<ReadableStream<Uint8Array>> {
    assertBlobKey(key)
    const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }))
    if (!object.Body) throw new Error(`Object ${key} has no body`)
    return object.Body.transformToWebStream() as ReadableStream<Uint8Array>
  }

  /**
   * A GET URL for the blob, signed for S3_PRESIGNED_URL_EXPIRY seconds. The object is looked up
   * first so that a missing blob fails here, while the caller can still give the download back.
   */
  async presign(key: string): Promise<string> {
    assertBlobKey(key)
    await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }))
    return getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.bucket, Key: key }), {
      expiresIn: this.expirySec,
    })
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key)
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }))
  }

  async *list(): AsyncIterable<StoredBlob> {
    let token: string | undefined
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, ContinuationToken: token }),
      )
      for (const object of page.Contents ?? []) {
        if (!object.Key || !isBlobKey(object.Key)) continue
        yield {
          key: object.Key,
          size: object.Size ?? 0,
          modifiedAt: object.LastModified?.getTime() ?? 0,
        }
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined
    } while (token)
  }

  async sweepUnfinished(
    olderThanMs: number,
    keep: ReadonlySet<string> = new Set(),
  ): Promise<number> {
    const cutoff = this.now() - olderThanMs
    let aborted = 0
    let keyMarker: string | undefined
    let uploadIdMarker: string | undefined
    do {
      const page = await this.client.send(
        new ListMultipartUploadsCommand({
          Bucket: this.bucket,
          KeyMarker: keyMarker,
          UploadIdMarker: uploadIdMarker,
        }),
      )
      for (const upload of page.Uploads ?? []) {
        const { Key: key, UploadId: uploadId, Initiated: initiated } = upload
        if (!key || !uploadId || !isBlobKey(key) || keep.has(key)) continue
        if ((initiated?.getTime() ?? 0) > cutoff) continue
        await this.client.send(
          new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId }),
        )
        aborted++
      }
      keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined
      uploadIdMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined
    } while (keyMarker)
    return aborted
  }

  async check(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }))
  }
}

/**
 * Gathers written bytes into parts of exactly `partSize`; each full part starts uploading at once
 * and `write()` resolves only while fewer than MAX_PARTS_IN_FLIGHT are running.
 */
class S3Writer implements BlobWriter {
  bytesWritten = 0
  private buffered: Uint8Array[] = []
  private bufferedBytes = 0
  private uploadId: string | undefined
  private readonly parts: CompletedPart[] = []
  private nextPartNumber = 1
  private readonly inFlight = new Set<Promise<void>>()
  private failure: unknown
  private closed = false

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly key: string,
    private readonly partSize: number,
  ) {}

  async write(chunk: Uint8Array): Promise<void> {
    if (this.closed) throw new Error('Blob writer is closed')
    this.throwIfFailed()
    this.bytesWritten += chunk.length
    let rest = chunk
    while (this.bufferedBytes + rest.length >= this.partSize) {
      const take = this.partSize - this.bufferedBytes
      this.buffered.push(rest.subarray(0, take))
      rest = rest.subarray(take)
      await this.sendPart(this.takeBuffer())
    }
    if (rest.length > 0) {
      this.buffered.push(rest)
      this.bufferedBytes += rest.length
    }
  }

  async commit(): Promise<void> {
    if (this.closed) throw new Error('Blob writer is closed')
    this.closed = true
    try {
      if (this.uploadId === undefined) {
        // Smaller than one part: a single PutObject with a known length (radosgw refuses a
        // streamed body without one).
        const body = this.takeBuffer()
        await this.client.send(
          new PutObjectCommand({
            Bucket: this.bucket,
            Key: this.key,
            Body: body,
            ContentLength: body.length,
          }),
        )
        return
      }
      if (this.bufferedBytes > 0) await this.sendPart(this.takeBuffer())
      await Promise.all(this.inFlight)
      this.throwIfFailed()
      this.parts.sort((a, b) => (a.PartNumber ?? 0) - (b.PartNumber ?? 0))
      await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: this.key,
          UploadId: this.uploadId,
          MultipartUpload: { Parts: this.parts },
        }),
      )
    } catch (error) {
      await this.abortUpload().catch(() => undefined)
      throw error
    }
  }

  async abort(): Promise<void> {
    this.closed = true
    this.buffered = []
    this.bufferedBytes = 0
    await this.abortUpload()
  }

  private async abortUpload(): Promise<void> {
    // Parts still uploading would otherwise land after the abort and be stored anyway.
    await Promise.allSettled(this.inFlight)
    const uploadId = this.uploadId
    if (uploadId === undefined) return
    this.uploadId = undefined
    try {
      await this.client.send(
        new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: this.key, UploadId: uploadId }),
      )
    } catch (error) {
      // Already aborted, by the cleanup job's sweep for instance: nothing is left, as asked.
      if (!isNotFound(error)) throw error
    }
  }

  private takeBuffer(): Buffer {
    const body = Buffer.concat(this.buffered)
    this.buffered = []
    this.bufferedBytes = 0
    return body
  }

  /** Starts one part upload, first waiting for a free place among the parts in flight. */
  private async sendPart(body: Buffer): Promise<void> {
    while (this.inFlight.size >= MAX_PARTS_IN_FLIGHT) await Promise.race(this.inFlight)
    this.throwIfFailed()
    if (this.uploadId === undefined) {
      const created = await this.client.send(
        new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: this.key }),
      )
      if (!created.UploadId) throw new Error('CreateMultipartUpload returned no UploadId')
      this.uploadId = created.UploadId
    }
    const partNumber = this.nextPartNumber++
    const running = this.client
      .send(
        new UploadPartCommand({
          Bucket: this.bucket,
          Key: this.key,
          UploadId: this.uploadId,
          PartNumber: partNumber,
          Body: body,
          ContentLength: body.length,
        }),
      )
      .then(
        (result) => void this.parts.push({ PartNumber: partNumber, ETag: result.ETag }),
        (error: unknown) => void (this.failure ??= error),
      )
      .finally(() => this.inFlight.delete(running))
    this.inFlight.add(running)
  }

  private throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure
  }
}

function isBlobKey(key: string): boolean {
  try {
    assertBlobKey(key)
    return true
  } catch {
    return false
  }
}

function isNotFound(error: unknown): boolean {
  const { name, $metadata } = (error ?? {}) as {
    name?: string
    $metadata?: { httpStatusCode?: number }
  }
  return (
    name === 'NotFound' ||
    name === 'NoSuchBucket' ||
    name === 'NoSuchUpload' ||
    $metadata?.httpStatusCode === 404
  )
}
