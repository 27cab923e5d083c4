/**
 * The narrow interface every storage backend implements. Keys are server-generated UUIDs, never
 * user input. A blob becomes readable only after `commit()`; until then it is invisible and
 * `abort()` (or a crash, swept by `sweepUnfinished()`) leaves nothing behind.
 * May touch: only the store and streams it is given.
 */
import { randomUUID } from 'node:crypto'
import type { Writable } from 'node:stream'

export interface BlobWriter {
  /** Appends bytes; resolves when the store is ready for more (this is the backpressure). */
  write(chunk: Uint8Array): Promise<void>
  /** Makes the blob durable and visible under its key. */
  commit(): Promise<void>
  /** Discards everything written; safe to call more than once and after a failure. */
  abort(): Promise<void>
  readonly bytesWritten: number
}

/** Where a resumable writer's bytes are durable, and what the store needs to reopen it. */
export interface WriterCheckpoint {
  /** Bytes durable from byte 0: they survive a crash and a restart. */
  offset: number
  /** Opaque text for `reopen()` (S3: the multipart upload and its part size; '' for none). */
  state: string
}

/**
 * A writer whose bytes outlive its connection and its process: written under a name fixed by its
 * key (no random suffix), so that `reopen()` finds them again and continues from a durable point.
 */
export interface ResumableWriter extends BlobWriter {
  /**
   * Makes every byte written so far durable, as far as the store can, and answers the point;
   * writes made meanwhile go on (they are not waited for).
   */
  checkpoint(): Promise<WriterCheckpoint>
  /**
   * Whether `reopen()` continues at any durable offset asked for (the filesystem), rather than
   * only at the durable points this writer reported (S3: part boundaries).
   */
  readonly reopensAnywhere: boolean
  /** The durable point as it stands, without waiting for anything. */
  durable(): WriterCheckpoint
  /**
   * Calls `listener` whenever the durable point moves on by itself (S3: a part stored; the
   * filesystem: a background flush), so that the point can be recorded without a later write.
   */
  onDurable(listener: () => void): void
  /**
   * Closes the writer and keeps its bytes up to the point it answers, for `reopen()`; with
   * `sync` false nothing more is made durable (the point is the last checkpoint's or later).
   */
  suspend(sync: boolean): Promise<WriterCheckpoint>
}

export interface StoredBlob {
  key: string
  size: number
  modifiedAt: number
}

export interface BlobStore {
  readonly kind: 'filesystem' | 's3'
  create(key: string): Promise<BlobWriter>
  /** A writer for an upload session that may resume; `key` is the session's server-made id. */
  createResumable(key: string): Promise<ResumableWriter>
  /**
   * Reopens a suspended (or crashed) resumable writer to continue from a durable point at or
   * below `offset` (filesystem: `offset` itself; S3: the start of the part holding it), which it
   * answers; bytes past that point are dropped and must be written again.
   */
  reopen(key: string, state: string, offset: number): Promise<ResumableWriter>
  /** Removes what a suspended resumable writer kept; nothing kept counts as removed. */
  discardResumable(key: string, state: string): Promise<void>
  /** A stream of the whole blob; fails if it does not exist. */
  read(key: string): Promise<ReadableStream<Uint8Array>>
  /**
   * The blob opened for a download the server sends, cheaper per byte than `read()` when written
   * to a Node response; fails if it does not exist. A store has this or `presign()`, which
   * `deliverBlob` prefers.
   */
  open?(key: string): Promise<OpenedBlob>
  /**
   * Bytes `start` up to `end` (exclusive) of the blob, opened as `open()` opens all of it, for a
   * ranged read under a read grant (access/read-grants.ts); fails if the blob does not exist.
   */
  openRange?(key: string, start: number, end: number): Promise<OpenedBlob>
  /**
   * A time-limited URL from which a client fetches the blob itself; fails if it does not exist.
   * Only stores that clients can reach directly have it (S3: spec, What the service does, 7).
   */
  presign?(key: string): Promise<string>
  /**
   * How long a URL from `presign()` can fetch its blob (S3_PRESIGNED_URL_EXPIRY): the blob of a
   * download counted at time t is kept until t plus this (records/blob-janitor.ts).
   */
  readonly presignedUrlLifetimeMs?: number
  /** The origin of presigned URLs, which the web app's Content-Security-Policy must allow. */
  readonly downloadOrigin?: string
  /** Removes a blob; a blob that does not exist counts as removed. */
  delete(key: string): Promise<void>
  /** Every committed blob, for sweeping blobs that have no record. */
  list(): AsyncIterable<StoredBlob>
  /**
   * Removes what unfinished writers left behind (after a crash or at start), when older than
   * `olderThanMs` and not written under one of the `keep` keys (sessions still open).
   */
  sweepUnfinished(olderThanMs: number, keep?: ReadonlySet<string>): Promise<number>
  /** Throws when the storage does not answer (health check). */
  check(): Promise<void>
  /**
   * Prepares the store for the chunks of session `key`, whose blob will have `size` bytes and
   * whose clients are asked for chunks of `chunkSize` bytes (the last one shorter), and answers
   * what `putChunk` and `joinChunks` take for it (S3: the UploadId of the blob's multipart upload,
   * which large chunks join as parts; the filesystem: the layout of the session file that holds
   * chunks of that size in place), or null when the store needs nothing. Chunk sessions in the
   * database keep it on their row until they end.
   */
  startChunks(key: string, size: number, chunkSize: number): Promise<string | null>
  /** Discards what `startChunks` prepared; what is gone already counts as discarded. */
  abortChunks(key: string, upload: string): Promise<void>
  /**
   * Stores one chunk of a chunked upload, durable before it resolves, where no other index is
   * (S3: as its own object, or as part `index + 1` of the session's multipart upload; the
   * filesystem: as its own file, or at `index * chunkSize` of the session file), and where no
   * other attempt at this index is, or where a later attempt replaces it; fails, leaving nothing
   * that a join takes, when `body` fails or does not bring exactly `length` bytes. Chunk sessions
   * in the database record what this answers.
   */
  putChunk(
    key: string,
    index: number,
    body: ChunkBody,
    length: number,
    upload: string | null,
  ): Promise<StoredChunk>
  /**
   * Joins the recorded chunks, in order, into the blob `key`, which exists once it resolves,
   * copying what the store cannot join in place (S3: chunks of their own; the filesystem: chunks
   * outside the session file's stride); a join that fails leaves no blob under `key`.
   */
  joinChunks(key: string, chunks: readonly StoredChunk[], upload: string | null): Promise<void>
  /**
   * Removes stored chunks; a chunk that does not exist counts as removed, and a chunk stored as
   * a part of the session's upload or in its session file goes with that upload or file
   * (`joinChunks` or `abortChunks`).
   */
  deleteChunks(chunks: readonly StoredChunk[]): Promise<void>
  /** Removes chunks older than `olderThanMs` whose session is not one of `keep`. */
  sweepChunks(olderThanMs: number, keep: ReadonlySet<string>): Promise<number>
}

/** A chunk's bytes: read whole already, or still arriving. */
export type ChunkBody = Iterable<Uint8Array> | AsyncIterable<Uint8Array>

/** A chunk stored by `putChunk()`: its name in the store, its size and, on S3, its ETag. */
export interface StoredChunk {
  ref: string
  size: number
  etag: string | null
}

/** The name of a stored chunk: `<key>.<index>.<random>`, the first and last UUIDs. */
export const CHUNK_NAME = /^[0-9a-f-]{36}\.[0-9]{1,16}\.[0-9a-f-]{36}$/

/** A new name for chunk `index` of blob `key`, which no other attempt at that index shares. */
export function newChunkName(key: string, index: number): string {
  assertBlobKey(key)
  return `${key}.${index}.${randomUUID()}`
}

/** The session key of a stored chunk's name, or null for another name. */
export function chunkSessionOf(name: string): string | null {
  const key = name.split('.')[0] ?? ''
  return CHUNK_NAME.test(name) && KEY_PATTERN.test(key) ? key : null
}

/**
 * A blob opened for a download the server sends itself. Either way of reading it takes the blob
 * once; one that is never read must be released with `close()`.
 */
export interface OpenedBlob {
  /**
   * Writes the blob's `length` bytes to `out` with its backpressure, then ends it. Resolves once
   * done, or once `out` closed early (the client went away). A failed read, or a blob that turns
   * out shorter or longer than `length` (damaged storage), destroys `out` and rejects: the client
   * sees a cut-off body at once instead of waiting for bytes its Content-Length promised.
   */
  pipeTo(out: Writable, length: number): Promise<void>
  /** The bytes as a web stream, for an answer without a Node response to write to. */
  stream(): ReadableStream<Uint8Array>
  close(): Promise<void>
}

/** How a counted download reaches the client: sent by the server, or fetched from a URL. */
export type BlobDelivery = { blob: OpenedBlob } | { url: string }

/**
 * Opens a blob for a download the way its store serves it, only the bytes from `start` to `end`
 * when `bounds` are given (a presigned URL reads ranges itself); fails if the blob does not exist.
 */
export async function deliverBlob(
  store: BlobStore,
  key: string,
  bounds?: { start: number; end: number },
): Promise<BlobDelivery> {
  if (store.presign) return { url: await store.presign(key) }
  if (bounds !== undefined) {
    if (!store.openRange) throw new Error(`The ${store.kind} store cannot open a range of a blob`)
    return { blob: await store.openRange(key, bounds.start, bounds.end) }
  }
  if (store.open) return { blob: await store.open(key) }
  throw new Error(`The ${store.kind} store can neither open nor presign a blob`)
}

/** Counts a blob's bytes as they are read, and fails as soon as they differ from its length. */
export class LengthCheck {
  private seen = 0

  constructor(private readonly length: number) {}

  /** Before a piece is sent: fails when it would take the blob past its length. */
  add(bytes: number): void {
    this.seen += bytes
    if (this.seen > this.length) throw this.mismatch()
  }

  /** At the end of the blob: fails when it was shorter than its length. */
  end(): void {
    if (this.seen !== this.length) throw this.mismatch()
  }

  private mismatch(): Error {
    return new Error(`The stored blob does not have its recorded length of ${this.length} bytes`)
  }
}

/** Waits until `out` takes more data: true on 'drain', false once it closed or failed. */
export function drained(out: Writable): Promise<boolean> {
  if (out.destroyed) return Promise.resolve(false)
  return new Promise((resolve) => {
    const settle = (more: boolean) => () => {
      out.off('drain', onDrain)
      out.off('close', onClose)
      out.off('error', onClose)
      resolve(more)
    }
    const onDrain = settle(true)
    const onClose = settle(false)
    out.on('drain', onDrain)
    out.on('close', onClose)
    out.on('error', onClose)
  })
}

const KEY_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Defense in depth: a key that is not a UUID never reaches a path or an object name. */
export function assertBlobKey(key: string): void {
  if (!KEY_PATTERN.test(key)) throw new Error(`Refusing blob key ${JSON.stringify(key)}`)
}
