/**
 * The writer of one blob in an S3 bucket (s3.ts): written chunks gathered into parts of a
 * multipart upload, a few uploading at once, each retried on a transient failure; a blob under
 * one part goes up at commit as one PutObject.
 * May touch: the network (S3: its own object and multipart upload); timers (retry backoff).
 */
import { PutObjectCommand, S3Client, type CompletedPart } from '@aws-sdk/client-s3'
import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'

import { InFlight } from './in-flight.js'
import * as multipart from './s3-multipart.js'
import { type ResumableWriter, type WriterCheckpoint } from './blob-store.js'

/** Parts uploading at once per writer: enough to keep the S3 server busy while the next gathers. */
const MAX_PARTS_IN_FLIGHT = 3

/** Attempts per part: the SDK does not send a stream twice, so the writer retries a part itself. */
const PART_ATTEMPTS = 3

/** The chunks of one part, in order, and their total length. */
interface Part {
  pieces: Uint8Array[]
  length: number
}

/**
 * Gathers written chunks, without copying them, into parts of exactly the part size. A full part
 * starts uploading once fewer than MAX_PARTS_IN_FLIGHT are running, and the `write()` that filled
 * it waits for that: a full part waiting beside them would add memory but no speed. The writer
 * keeps each chunk until its part is stored, so a caller must not change a chunk's bytes after
 * writing it (none does).
 */
export class S3Writer implements ResumableWriter {
  bytesWritten = 0
  /** Chunks of the part being gathered. */
  private gathering: Part = { pieces: [], length: 0 }
  private upload: Promise<multipart.Target> | undefined
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
      this.upload = Promise.resolve({ Bucket: bucket, Key: key, UploadId: resumed.uploadId })
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

  async suspend(sync: boolean): Promise<WriterCheckpoint> {
    if (this.closed) throw new Error('Blob writer is closed')
    try {
      // Without `sync`, a full part waiting for a place is dropped, as the part gathered is.
      if (!sync) this.parts.stop()
      await this.parts.settle()
      if (sync) this.parts.throwIfFailed()
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
        await this.upload
        if (!started || this.aborted) throw new Error('Blob writer is closed')
      }
    }
  }

  async commit(): Promise<void> {
    if (this.closed) throw new Error('Blob writer is closed')
    this.closed = true
    try {
      if (this.upload === undefined) {
        // Smaller than one part: a single PutObject with a known length (radosgw refuses a
        // streamed body without one).
        const { pieces, length } = this.gathering
        this.gathering = { pieces: [], length: 0 }
        const body = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, length)
        const object = { Bucket: this.bucket, Key: this.key, Body: body, ContentLength: length }
        await this.client.send(new PutObjectCommand(object))
        return
      }
      if (this.gathering.length > 0) await this.startPart()
      await this.parts.drain()
      this.completed.sort((a, b) => (a.PartNumber ?? 0) - (b.PartNumber ?? 0))
      await multipart.complete(this.client, await this.upload!, this.completed)
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
    const pending = this.upload
    if (pending === undefined) return
    this.upload = undefined
    const target = await pending.catch(() => undefined)
    if (target !== undefined) await multipart.abort(this.client, target)
  }

  /** Uploads the part gathered so far once a place is free; false when the writer stopped first. */
  private startPart(): Promise<boolean> {
    const part = this.gathering
    this.gathering = { pieces: [], length: 0 }
    return this.parts.start(async () => {
      const partNumber = this.nextPartNumber++
      this.upload ??= multipart.create(this.client, this.bucket, this.key).then((target) => {
        this.knownUploadId = target.UploadId
        return target
      })
      const etag = await this.uploadPart(await this.upload, partNumber, part)
      this.partStored({ PartNumber: partNumber, ETag: etag })
    })
  }

  /** Sends one part, again after a failure the server or the network may recover from. */
  private async uploadPart(target: multipart.Target, partNumber: number, part: Part) {
    for (let attempt = 1; ; attempt++) {
      try {
        const body = Readable.from(part.pieces, { objectMode: false })
        return await multipart.sendPart(this.client, target, partNumber, body, part.length)
      } catch (error) {
        if (attempt >= PART_ATTEMPTS || this.aborted || !multipart.isTransient(error)) throw error
        await sleep(100 * 2 ** attempt)
      }
    }
  }
}
