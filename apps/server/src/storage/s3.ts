/**
 * Blobs as objects in an S3-compatible bucket, written by s3-writer.ts. An object exists only once
 * complete, and multipart uploads left by a crash are aborted by `sweepUnfinished()` (spec: What
 * the service does, 7). The chunks of sessions kept in the database are s3-chunks.ts's.
 * May touch: the network (S3: the bucket).
 */
import {
  AbortMultipartUploadCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  paginateListObjectsV2,
  S3Client,
  type CompletedPart,
  type Part,
} from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'

import type { S3Settings } from '../config.js'
import { asStorageFailure } from './unavailable.js'
import { S3Chunks } from './s3-chunks.js'
import { MIN_PART_SIZE } from './s3-join-plan.js'
import * as multipart from './s3-multipart.js'
import {
  assertBlobKey,
  isBlobKey,
  type BlobStore,
  type ResumableWriter,
  type StoredBlob,
} from './blob-store.js'
import { S3Writer } from './s3-writer.js'

/** The S3 settings of the config (docs/configuration.md, S3), plus the clock. */
export interface S3StoreOptions extends S3Settings {
  /** The clock the age of unfinished multipart uploads is measured with; Date.now by default. */
  now?: () => number
}

export class S3BlobStore extends S3Chunks implements BlobStore {
  readonly kind = 's3' as const
  readonly downloadOrigin: string
  readonly presignedUrlLifetimeMs: number
  private readonly partSize: number

  constructor(options: S3StoreOptions) {
    super(s3Client(options), options.bucket, options.now ?? Date.now)
    this.partSize = options.partSize
    this.presignedUrlLifetimeMs = options.presignedUrlExpirySec * 1000
    const endpoint = new URL(options.endpoint)
    // Virtual-hosted addressing puts the bucket in the host name of every presigned URL.
    if (!options.forcePathStyle) endpoint.hostname = `${options.bucket}.${endpoint.hostname}`
    this.downloadOrigin = endpoint.origin
  }

  /** Creates the bucket when it does not exist yet, so a fresh S3 server needs no manual step. */
  async ensureBucket(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }))
    } catch (error) {
      if (!multipart.isNotFound(error)) throw error
      await this.client.send(new CreateBucketCommand({ Bucket: this.bucket }))
    }
  }

  async create(key: string): Promise<S3Writer> {
    assertBlobKey(key)
    return new S3Writer(this.client, this.bucket, key, this.partSize)
  }

  createResumable(key: string): Promise<ResumableWriter> {
    return this.create(key)
  }

  /**
   * Continues the multipart upload named in `state` after its last complete part at or below
   * `offset`, as ListParts reports them; parts past that point are sent again and replace the
   * ones stored under their numbers. Without a multipart upload yet, starts from byte 0.
   */
  async reopen(key: string, state: string, offset: number): Promise<ResumableWriter> {
    assertBlobKey(key)
    const resumed = parseWriterState(state)
    if (resumed === null) return this.create(key)
    const { uploadId, partSize } = resumed
    const stored = new Map<number, Part>()
    let marker: string | undefined
    do {
      const list = { Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumberMarker: marker }
      const page = await this.client.send(new ListPartsCommand(list))
      for (const part of page.Parts ?? []) {
        if (part.PartNumber && part.ETag) stored.set(part.PartNumber, part)
      }
      marker = page.IsTruncated ? page.NextPartNumberMarker : undefined
    } while (marker)
    const completed: CompletedPart[] = []
    for (let number = 1; number <= Math.floor(offset / partSize); number++) {
      const part = stored.get(number)
      if (part?.Size !== partSize) break
      completed.push({ PartNumber: number, ETag: part.ETag })
    }
    return new S3Writer(this.client, this.bucket, key, partSize, { uploadId, completed })
  }

  async discardResumable(key: string, state: string): Promise<void> {
    assertBlobKey(key)
    const resumed = parseWriterState(state)
    if (resumed !== null) await multipart.abort(this.client, this.target(key, resumed.uploadId))
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
      expiresIn: this.presignedUrlLifetimeMs / 1000,
    })
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key)
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }))
  }

  async *list(): AsyncIterable<StoredBlob> {
    const listing = paginateListObjectsV2({ client: this.client }, { Bucket: this.bucket })
    for await (const page of listing) {
      for (const object of page.Contents ?? []) {
        if (!object.Key || !isBlobKey(object.Key)) continue
        yield {
          key: object.Key,
          size: object.Size ?? 0,
          modifiedAt: object.LastModified?.getTime() ?? 0,
        }
      }
    }
  }

  async sweepUnfinished(olderThanMs: number, keep: ReadonlySet<string>): Promise<number> {
    const cutoff = this.now() - olderThanMs
    let aborted = 0
    let keyMarker: string | undefined
    let uploadIdMarker: string | undefined
    do {
      const list = { Bucket: this.bucket, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }
      const page = await this.client.send(new ListMultipartUploadsCommand(list))
      for (const upload of page.Uploads ?? []) {
        const { Key: key, UploadId: uploadId, Initiated: initiated } = upload
        if (!key || !uploadId || !isBlobKey(key) || keep.has(key)) continue
        if ((initiated?.getTime() ?? 0) > cutoff) continue
        await this.client.send(new AbortMultipartUploadCommand(this.target(key, uploadId)))
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

function s3Client(options: S3Settings): S3Client {
  const client = new S3Client({
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
  client.middlewareStack.add(
    (next) => async (args) => {
      const { request } = args as { request: { headers?: Record<string, string> } }
      if (request.headers) request.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD'
      return next(args)
    },
    { step: 'build', name: 'fileshareUnsignedPayload' },
  )
  // After the SDK's own retries: a server out of reach is the storage's outage.
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args)
      } catch (error) {
        throw asStorageFailure(error)
      }
    },
    { step: 'initialize', name: 'fileshareStorageOutage' },
  )
  return client
}

/** The multipart upload a resumable writer's checkpoint names, or null when it had none yet. */
function parseWriterState(state: string): { uploadId: string; partSize: number } | null {
  if (state === '') return null
  const parsed = JSON.parse(state) as { uploadId?: unknown; partSize?: unknown }
  if (
    typeof parsed.uploadId !== 'string' ||
    typeof parsed.partSize !== 'number' ||
    !Number.isSafeInteger(parsed.partSize) ||
    parsed.partSize < MIN_PART_SIZE
  ) {
    throw new Error('Unreadable writer state')
  }
  return { uploadId: parsed.uploadId, partSize: parsed.partSize }
}
