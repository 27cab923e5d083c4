/**
 * Blobs as objects in an S3-compatible bucket. A writer streams into a multipart upload: it keeps
 * the written chunks themselves (no copy) until they make up a part, with at most
 * MAX_PARTS_IN_FLIGHT part uploads running, so memory stays bounded whatever the blob's size; a
 * blob smaller than one part is sent at commit as one PutObject. An object exists only once
 * complete, and multipart uploads left by a crash are aborted by `sweepUnfinished()` (spec: What
 * the service does, 7). The chunks of chunked sessions kept in the database are s3-chunks.ts's.
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
  PutObjectCommand,
  S3Client,
  type CompletedPart,
} from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'

import type { S3Settings } from '../config.js'
import { asStorageFailure } from './unavailable.js'
import { S3Chunks } from './s3-chunks.js'
import { isNotFound, isTransient } from './s3-errors.js'
import { objectPages } from './s3-listing.js'
import { InFlight } from './in-flight.js'
import { MIN_PART_SIZE } from './s3-join-plan.js'
import * as multipart from './s3-multipart.js'
import {
  assertBlobKey,
  type BlobStore,
  type BlobWriter,
  type ResumableWriter,
  type StoredBlob,
  type WriterCheckpoint,
} from './blob-store.js'

/** The S3 settings of the config (docs/configuration.md, S3), plus the clock. */
export interface S3StoreOptions extends S3Settings {
  /** The clock the age of unfinished multipart uploads is measured with; Date.now by default. */
  now?: () => number
}

/**
 * Parts uploading at once per writer: enough to keep the S3 server busy while the next part
 * gathers. With the part being gathered, a writer holds at most four parts of data.
 */
const MAX_PARTS_IN_FLIGHT = 3

/**
 * Attempts per part. A part's body is a stream over the chunks it holds, which the SDK does not
 * send twice, so the writer retries a part itself, with a new stream over the same chunks.
 */
const PART_ATTEMPTS = 3

export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const
  readonly client: S3Client
  readonly bucket: string
  readonly downloadOrigin: string
  readonly presignedUrlLifetimeMs: number
  private readonly partSize: number
  private readonly expirySec: number
  private readonly now: () => number
  private readonly chunks: S3Chunks

  constructor(options: S3StoreOptions) {
    this.bucket = options.bucket
    this.partSize = options.partSize
    this.expirySec = options.presignedUrlExpirySec
    this.presignedUrlLifetimeMs = options.presignedUrlExpirySec * 1000
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
    // After the SDK's own retries: a server out of reach is the storage's outage.
    this.client.middlewareStack.add(
      (next) => async (args) => {
        try {
          return await next(args)
        } catch (error) {
          throw asStorageFailure(error)
        }
      },
      { step: 'initialize', name: 'fileshareStorageOutage' },
    )
    this.chunks = new S3Chunks(this.client, this.bucket, this.now)
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

  async createResumable(key: string): Promise<ResumableWriter> {
    assertBlobKey(key)
    return new S3Writer(this.client, this.bucket, key, this.partSize)
  }

  /**
   * Continues the multipart upload named in `state` after its last complete part at or below
   * `offset`, as ListParts reports them; parts past that point are sent again and replace the
   * ones stored under their numbers. Without a multipart upload yet, starts from byte 0.
   */
  async reopen(key: string, state: string, offset: number): Promise<ResumableWriter> {
    assertBlobKey(key)
    const resumed = parseWriterState(state)
    if (resumed === null) return new S3Writer(this.client, this.bucket, key, this.partSize)
    const { uploadId, partSize } = resumed
    const sizes = new Map<number, { etag: string; size: number }>()
    let marker: string | undefined
    do {
      const page = await this.client.send(
        new ListPartsCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId: uploadId,
          PartNumberMarker: marker,
        }),
      )
      for (const part of page.Parts ?? []) {
        if (part.PartNumber && part.ETag) {
          sizes.set(part.PartNumber, { etag: part.ETag, size: part.Size ?? 0 })
        }
      }
      marker = page.IsTruncated ? page.NextPartNumberMarker : undefined
    } while (marker)
    const completed: CompletedPart[] = []
    const wanted = Math.floor(offset / partSize)
    for (let number = 1; number <= wanted; number++) {
      const part = sizes.get(number)
      if (!part || part.size !== partSize) break
      completed.push({ PartNumber: number, ETag: part.etag })
    }
    return new S3Writer(this.client, this.bucket, key, partSize, { uploadId, completed })
  }

  async discardResumable(key: string, state: string): Promise<void> {
    assertBlobKey(key)
    const resumed = parseWriterState(state)
    if (resumed === null) return
    await multipart.abort(this.client, {
      Bucket: this.bucket,
      Key: key,
      UploadId: resumed.uploadId,
    })
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
    for await (const page of objectPages(this.client, this.bucket)) {
      for (const object of page) {
        if (!object.Key || !isBlobKey(object.Key)) continue
        yield {
          key: object.Key,
          size: object.Size ?? 0,
          modifiedAt: object.LastModified?.getTime() ?? 0,
        }
      }
    }
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

  // The chunks of chunked sessions kept in the database are S3Chunks' (s3-chunks.ts).
  readonly startChunks: BlobStore['startChunks'] = (key, size) => this.chunks.start(key, size)
  readonly abortChunks: BlobStore['abortChunks'] = (key, upload) => this.chunks.abort(key, upload)
  readonly putChunk: BlobStore['putChunk'] = (...chunk) => this.chunks.put(...chunk)
  readonly joinChunks: BlobStore['joinChunks'] = (...join) => this.chunks.join(...join)
  readonly deleteChunks: BlobStore['deleteChunks'] = (chunks) => this.chunks.delete(chunks)
  readonly sweepChunks: BlobStore['sweepChunks'] = (olderThanMs, keep) =>
    this.chunks.sweep(olderThanMs, keep)
}

/** The chunks of one part, in order, and their total length. */
interface Part {
  pieces: Uint8Array[]
  length: number
}

/**
 * Gathers written chunks, without copying them, into parts of exactly the part size (a chunk
 * that straddles two parts is split into two views of it). A full part starts uploading at once
 * while fewer than MAX_PARTS_IN_FLIGHT are running; otherwise the `write()` that filled it waits
 * for a place. No full part waits beside those: it would add memory (one part more per upload)
 * but no speed, since the socket or request body behind the writer keeps flowing into the part
 * being gathered meanwhile. The writer keeps each chunk until its part is stored, so a caller
 * must not change a chunk's bytes after writing it (none does: every transport hands over bytes
 * it received and no longer uses).
 */
class S3Writer implements ResumableWriter {
  bytesWritten = 0
  /** Chunks of the part being gathered. */
  private gathering: Part = { pieces: [], length: 0 }
  private uploadId: Promise<string> | undefined
  /** The multipart upload's id once it exists, for checkpoints. */
  private knownUploadId: string | undefined
  private readonly completed: CompletedPart[] = []
  /** Stored parts numbered past the gapless run from part 1, and that run's length. */
  private readonly storedNumbers = new Set<number>()
  private contiguousParts = 0
  private nextPartNumber = 1
  private readonly parts = new InFlight(MAX_PARTS_IN_FLIGHT)
  private closed = false
  /** Set by abort(), which may run while a write() waits: nothing starts after it. */
  private aborted = false

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly key: string,
    private readonly partSize: number,
    /** A multipart upload to continue after its complete parts, numbered from 1. */
    resumed?: { uploadId: string; completed: CompletedPart[] },
  ) {
    if (resumed) {
      this.knownUploadId = resumed.uploadId
      this.uploadId = Promise.resolve(resumed.uploadId)
      for (const part of resumed.completed) this.partStored(part)
      this.nextPartNumber = resumed.completed.length + 1
      this.bytesWritten = resumed.completed.length * partSize
    }
  }

  /** Bytes in parts stored without a gap from part 1: every part but the last is full. */
  durable(): WriterCheckpoint {
    const state =
      this.knownUploadId === undefined
        ? ''
        : JSON.stringify({ uploadId: this.knownUploadId, partSize: this.partSize })
    return { offset: this.contiguousParts * this.partSize, state }
  }

  /** Records a stored part and moves the gapless run of stored parts on. */
  private partStored(part: CompletedPart): void {
    this.completed.push(part)
    this.storedNumbers.add(part.PartNumber!)
    const before = this.contiguousParts
    while (this.storedNumbers.has(this.contiguousParts + 1)) {
      this.storedNumbers.delete(++this.contiguousParts)
    }
    if (this.contiguousParts > before) this.durableListener?.()
  }

  private durableListener: (() => void) | undefined

  onDurable(listener: () => void): void {
    this.durableListener = listener
  }

  readonly reopensAnywhere = false

  /**
   * The part being gathered cannot be made durable before it is full, and parts are stored as
   * they fill: this answers the durable point as it stands.
   */
  async checkpoint(): Promise<WriterCheckpoint> {
    if (this.closed) throw new Error('Blob writer is closed')
    return this.durable()
  }

  async suspend(sync: boolean): Promise<WriterCheckpoint> {
    if (this.closed) throw new Error('Blob writer is closed')
    try {
      if (sync) {
        await this.parts.drain()
      } else {
        // A full part still waiting for a place is dropped, as the part being gathered is.
        this.parts.stop()
        await this.parts.settle()
      }
      return this.durable()
    } finally {
      this.closed = true
      this.aborted = true
      this.gathering = { pieces: [], length: 0 }
      this.parts.stop()
      await this.parts.settle()
    }
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (this.closed) throw new Error('Blob writer is closed')
    this.parts.throwIfFailed()
    this.bytesWritten += chunk.length
    let rest = chunk
    while (rest.length > 0) {
      const room = this.partSize - this.gathering.length
      const piece = rest.length > room ? rest.subarray(0, room) : rest
      rest = rest.subarray(piece.length)
      this.gathering.pieces.push(piece)
      this.gathering.length += piece.length
      if (this.gathering.length === this.partSize) {
        const started = await this.startPart()
        // Once the write that began it resolves, the multipart upload exists: the sweep of
        // unfinished uploads sees it from then on, as it saw every write before.
        await this.uploadId
        if (!started || this.aborted) throw new Error('Blob writer is closed')
      }
    }
  }

  async commit(): Promise<void> {
    if (this.closed) throw new Error('Blob writer is closed')
    this.closed = true
    try {
      if (this.uploadId === undefined) {
        // Smaller than one part: a single PutObject with a known length (radosgw refuses a
        // streamed body without one).
        const { pieces, length } = this.gathering
        this.gathering = { pieces: [], length: 0 }
        const body = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, length)
        await this.client.send(
          new PutObjectCommand({
            Bucket: this.bucket,
            Key: this.key,
            Body: body,
            ContentLength: length,
          }),
        )
        return
      }
      if (this.gathering.length > 0) await this.startPart()
      await this.parts.drain()
      const uploadId = await this.uploadId!
      this.completed.sort((a, b) => (a.PartNumber ?? 0) - (b.PartNumber ?? 0))
      await multipart.complete(this.client, this.target(uploadId), this.completed)
    } catch (error) {
      await this.abortUpload().catch(() => undefined)
      throw error
    }
  }

  async abort(): Promise<void> {
    this.closed = true
    this.aborted = true
    this.gathering = { pieces: [], length: 0 }
    await this.abortUpload()
  }

  private async abortUpload(): Promise<void> {
    this.parts.stop()
    // Parts still uploading would otherwise land after the abort and be stored anyway.
    await this.parts.settle()
    const pending = this.uploadId
    if (pending === undefined) return
    this.uploadId = undefined
    const uploadId = await pending.catch(() => undefined)
    if (uploadId !== undefined) await multipart.abort(this.client, this.target(uploadId))
  }

  private target(uploadId: string): multipart.Target {
    return { Bucket: this.bucket, Key: this.key, UploadId: uploadId }
  }

  /**
   * Starts uploading the part gathered so far once a place in flight is free, creating the
   * multipart upload with the first; false when the writer stopped first.
   */
  private startPart(): Promise<boolean> {
    const part = this.gathering
    this.gathering = { pieces: [], length: 0 }
    return this.parts.start(async () => {
      const partNumber = this.nextPartNumber++
      this.uploadId ??= multipart
        .create(this.client, this.bucket, this.key)
        .then(({ UploadId }) => {
          this.knownUploadId = UploadId
          return UploadId
        })
      const etag = await this.uploadPart(await this.uploadId, partNumber, part)
      this.partStored({ PartNumber: partNumber, ETag: etag })
    })
  }

  /** Sends one part, again after a failure the server or the network may recover from. */
  private async uploadPart(uploadId: string, partNumber: number, part: Part): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      try {
        // A new stream each attempt: the SDK does not send a stream's bytes twice.
        const body = Readable.from(part.pieces, { objectMode: false })
        return await multipart.sendPart(
          this.client,
          this.target(uploadId),
          partNumber,
          body,
          part.length,
        )
      } catch (error) {
        if (attempt >= PART_ATTEMPTS || this.aborted || !isTransient(error)) throw error
        await sleep(100 * 2 ** attempt)
      }
    }
  }
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

function isBlobKey(key: string): boolean {
  try {
    assertBlobKey(key)
    return true
  } catch {
    return false
  }
}
