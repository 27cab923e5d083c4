/**
 * The chunks of chunked sessions kept in the database, on S3, as the base of the S3 store (s3.ts).
 * A session whose blob can hold a part has a multipart upload of that blob from its start: a
 * chunk of at least the part minimum is sent straight into it as part `index + 1`, so finalize
 * completes the upload and copies nothing. A smaller chunk (the spec admits any non-empty size)
 * is an object of its own under CHUNK_PREFIX. When every chunk but the last is a part, finalize
 * copies the last in as the final part; otherwise it completes the parts into the blob and builds
 * the blob again from ranges of it and of the small chunks (s3-join-plan.ts).
 * May touch: the network (S3: chunk objects under CHUNK_PREFIX and their blob's multipart
 * upload).
 */
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  paginateListObjectsV2,
  PutObjectCommand,
  UploadPartCopyCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3'
import { Readable } from 'node:stream'

import {
  assertBlobKey,
  CHUNK_NAME,
  chunkSessionOf,
  newChunkName,
  type ChunkBody,
  type StoredChunk,
} from './blob-store.js'
import { inParallel } from './in-flight.js'
import {
  MAX_PART_SIZE,
  MAX_PARTS,
  MIN_PART_SIZE,
  planParts,
  type PlannedPart,
  type Range,
} from './s3-join-plan.js'
import * as multipart from './s3-multipart.js'

/** Where chunks stored apart from their session's multipart upload are kept. */
const CHUNK_PREFIX = 'chunks/'
/** The ref of a chunk stored as a part of its session's multipart upload: `part:<number>`. */
const PART_REF = /^part:([1-9][0-9]{0,4})$/
/** Parts a join copies or sends at once. */
const JOIN_PARTS_IN_FLIGHT = 4
/** The most keys one DeleteObjects request takes. */
const DELETE_BATCH = 1000

export class S3Chunks {
  constructor(
    readonly client: S3Client,
    readonly bucket: string,
    protected readonly now: () => number,
  ) {}

  /** A multipart upload of the blob, or null when the blob is too small for a part. */
  async startChunks(key: string, size: number, _chunkSize: number): Promise<string | null> {
    assertBlobKey(key)
    if (size < MIN_PART_SIZE) return null
    return (await multipart.create(this.client, this.bucket, key)).UploadId
  }

  async abortChunks(key: string, upload: string): Promise<void> {
    assertBlobKey(key)
    await multipart.abort(this.client, this.target(key, upload))
  }

  /** The multipart upload `upload` of the blob `key`. */
  protected target(key: string, upload: string): multipart.Target {
    return { Bucket: this.bucket, Key: key, UploadId: upload }
  }

  /** A chunk that can be a part goes into the session's upload, any other into its own object. */
  async putChunk(
    key: string,
    index: number,
    body: ChunkBody,
    length: number,
    upload: string | null,
  ): Promise<StoredChunk> {
    assertBlobKey(key)
    const partNumber = index + 1
    const { stream, abortSignal } = sentBody(body)
    if (upload !== null && isPartSize(length) && partNumber <= MAX_PARTS) {
      const target = this.target(key, upload)
      const etag = await multipart.sendPart(this.client, target, partNumber, stream, length, {
        abortSignal,
      })
      return { ref: `part:${partNumber}`, size: length, etag }
    }
    const ref = CHUNK_PREFIX + newChunkName(key, index)
    // A known length lets the body stream (radosgw refuses a streamed body without one).
    const put = await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: ref, Body: stream, ContentLength: length }),
      { abortSignal },
    )
    return { ref, size: length, etag: put.ETag ?? null }
  }

  async joinChunks(
    key: string,
    chunks: readonly StoredChunk[],
    upload: string | null,
  ): Promise<void> {
    assertBlobKey(key)
    for (const chunk of chunks) assertStoredRef(chunk.ref)
    const last = chunks.length - 1
    const partsButLast = chunks.every((chunk, i) => i === last || partNumberOf(chunk) === i + 1)
    if (upload !== null && chunks.length > 0 && chunks.length <= MAX_PARTS && partsButLast) {
      await this.completeParts(key, upload, chunks)
    } else {
      await this.rebuild(key, chunks, upload)
    }
  }

  /** Every chunk but the last is a part: the last, when stored apart, is copied in as the final. */
  private async completeParts(key: string, upload: string, chunks: readonly StoredChunk[]) {
    const target = this.target(key, upload)
    const parts: CompletedPart[] = chunks.map((chunk, i) => ({
      PartNumber: i + 1,
      ETag: chunk.etag ?? undefined,
    }))
    const last = chunks.at(-1)!
    if (partNumberOf(last) === null) {
      const copy = { source: last.ref, start: 0, length: last.size }
      parts[chunks.length - 1] = await this.writePart(target, chunks.length, { copy })
    }
    await multipart.complete(this.client, target, parts)
  }

  /**
   * Small chunks before the end: the parts are completed into the blob first (the bytes of an
   * unfinished upload cannot be read), then the blob is written again from ranges of itself and
   * of the small chunks. A failure removes the blob again.
   */
  private async rebuild(key: string, chunks: readonly StoredChunk[], upload: string | null) {
    const direct = chunks.filter((chunk) => partNumberOf(chunk) !== null)
    let joined = false
    if (upload !== null && direct.length > 0) {
      const parts = direct.map((chunk) => ({
        PartNumber: partNumberOf(chunk)!,
        ETag: chunk.etag ?? undefined,
      }))
      await multipart.complete(this.client, this.target(key, upload), parts)
      joined = true
    } else if (upload !== null) {
      await this.abortChunks(key, upload)
    }
    let offset = 0
    const ranges = chunks.map((chunk): Range => {
      if (partNumberOf(chunk) === null) return { source: chunk.ref, start: 0, length: chunk.size }
      offset += chunk.size
      return { source: key, start: offset - chunk.size, length: chunk.size }
    })
    try {
      await this.writeRanges(key, ranges)
    } catch (error) {
      // A blob left by a failed removal has no record: the sweep of orphan blobs takes it.
      if (joined) {
        await this.client
          .send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }))
          .catch(() => undefined)
      }
      throw error
    }
  }

  /** Writes the blob `key` from `ranges` in order, as one new multipart upload. */
  private async writeRanges(key: string, ranges: readonly Range[]): Promise<void> {
    const plan = planParts(ranges)
    if (plan.length === 0) {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: '', ContentLength: 0 }),
      )
      return
    }
    const target = await multipart.create(this.client, this.bucket, key)
    try {
      const parts = await inParallel(plan, JOIN_PARTS_IN_FLIGHT, (part, i) =>
        this.writePart(target, i + 1, part),
      )
      await multipart.complete(this.client, target, parts)
    } catch (error) {
      await multipart.abort(this.client, target).catch(() => undefined)
      throw error
    }
  }

  /** One planned part: copied by S3 from one range, or read from its ranges and sent. */
  private async writePart(
    target: multipart.Target,
    PartNumber: number,
    part: PlannedPart,
  ): Promise<CompletedPart> {
    if ('copy' in part) {
      const { source, start, length } = part.copy
      const copied = await this.client.send(
        new UploadPartCopyCommand({
          ...target,
          PartNumber,
          CopySource: `${this.bucket}/${source}`,
          CopySourceRange: byteRange(start, length),
        }),
      )
      return { PartNumber, ETag: copied.CopyPartResult?.ETag }
    }
    const pieces: Buffer[] = []
    for (const { source, start, length } of part.send) {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: source, Range: byteRange(start, length) }),
      )
      const bytes = Buffer.from((await object.Body?.transformToByteArray()) ?? [])
      if (bytes.length !== length) {
        throw new Error(`${source} has no ${length} bytes at ${start}`)
      }
      pieces.push(bytes)
    }
    const body = Buffer.concat(pieces, part.length)
    return {
      PartNumber,
      ETag: await multipart.sendPart(this.client, target, PartNumber, body, part.length),
    }
  }

  /** Removes chunks stored as objects, in batches; parts go with their upload. */
  async deleteChunks(chunks: readonly StoredChunk[]): Promise<void> {
    const refs: string[] = []
    for (const chunk of chunks) {
      assertStoredRef(chunk.ref)
      if (partNumberOf(chunk) === null) refs.push(chunk.ref)
    }
    await this.deleteObjects(refs)
  }

  async sweepChunks(olderThanMs: number, keep: ReadonlySet<string>): Promise<number> {
    const cutoff = this.now() - olderThanMs
    let removed = 0
    const listing = { Bucket: this.bucket, Prefix: CHUNK_PREFIX }
    for await (const page of paginateListObjectsV2({ client: this.client }, listing)) {
      const stale: string[] = []
      for (const object of page.Contents ?? []) {
        // Listed under CHUNK_PREFIX: the rest of the key is the chunk's name.
        const ref = object.Key ?? ''
        const session = chunkSessionOf(ref.slice(CHUNK_PREFIX.length))
        if (session === null || keep.has(session)) continue
        if ((object.LastModified?.getTime() ?? 0) > cutoff) continue
        stale.push(ref)
      }
      await this.deleteObjects(stale)
      removed += stale.length
    }
    return removed
  }

  /** DeleteObjects in batches; a key that does not exist counts as removed. */
  private async deleteObjects(keys: readonly string[]): Promise<void> {
    for (let at = 0; at < keys.length; at += DELETE_BATCH) {
      const batch = keys.slice(at, at + DELETE_BATCH)
      const answer = await this.client.send(
        new DeleteObjectsCommand({
          Bucket: this.bucket,
          Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
        }),
      )
      const failed = (answer.Errors ?? []).filter((error) => error.Code !== 'NoSuchKey')
      if (failed.length > 0) {
        const { Key, Code, Message } = failed[0]!
        throw new Error(
          `DeleteObjects failed for ${failed.length} keys, first ${Key}: ${Code} ${Message}`,
        )
      }
    }
  }
}

/** Whether S3 takes a chunk of `length` bytes as a part that is not the last. */
function isPartSize(length: number): boolean {
  return length >= MIN_PART_SIZE && length <= MAX_PART_SIZE
}

/** The part number of a chunk stored as a part of its session's upload, or null. */
function partNumberOf(chunk: StoredChunk): number | null {
  const match = PART_REF.exec(chunk.ref)
  return match ? Number(match[1]) : null
}

/** Defense in depth: a recorded ref is a part of the upload or an object under CHUNK_PREFIX. */
function assertStoredRef(ref: string): void {
  if (PART_REF.test(ref)) return
  if (!ref.startsWith(CHUNK_PREFIX) || !CHUNK_NAME.test(ref.slice(CHUNK_PREFIX.length)))
    throw new Error(`Refusing chunk name ${JSON.stringify(ref)}`)
}

/** An HTTP Range (RFC 9110, 14.1.2) of `length` bytes from `start`. */
function byteRange(start: number, length: number): string {
  return `bytes=${start}-${start + length - 1}`
}

/**
 * A chunk's body as the SDK reads it, and the signal that ends the send when the body fails (its
 * request went away): the SDK pipes the body, which passes no error on, so the send would wait for
 * bytes that never come while the error, heard by no one, ended the process.
 */
function sentBody(body: ChunkBody): { stream: Readable; abortSignal: AbortSignal } {
  const stream = Readable.from(body, { objectMode: false })
  const abort = new AbortController()
  stream.on('error', (error) => abort.abort(error))
  return { stream, abortSignal: abort.signal }
}
