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
  /** The durable point as it stands, without waiting for anything. */
  durable(): WriterCheckpoint
  /** Calls `listener` whenever the durable point moves on by itself (a part stored, a flush). */
  onDurable(listener: () => void): void
  /** Closes the writer, keeping for `reopen()` what is durable (all it was given, with `sync`). */
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
   * Reopens a suspended (or crashed) resumable writer at a durable point at or below `offset`
   * (filesystem: `offset` itself; S3: the start of the part holding it); later bytes are dropped.
   */
  reopen(key: string, state: string, offset: number): Promise<ResumableWriter>
  /** Removes what a suspended resumable writer kept; nothing kept counts as removed. */
  discardResumable(key: string, state: string): Promise<void>
  /** A stream of the whole blob; fails if it does not exist. */
  read(key: string): Promise<ReadableStream<Uint8Array>>
  /**
   * The blob opened for a download the server sends, only bytes `start` up to `end` (exclusive)
   * when `bounds` are given (read grants); a store has this or `presign()`.
   */
  open?(key: string, bounds?: { start: number; end: number }): Promise<OpenedBlob>
  /**
   * A time-limited URL from which a client fetches the blob itself; fails if it does not exist.
   * Only stores that clients can reach directly have it (S3: spec, What the service does, 7).
   */
  presign?(key: string): Promise<string>
  /** How long a URL from `presign()` can fetch its blob, which is kept that long after it. */
  readonly presignedUrlLifetimeMs?: number
  /** The origin of presigned URLs, which the web app's Content-Security-Policy must allow. */
  readonly downloadOrigin?: string
  /** Removes a blob; a blob that does not exist counts as removed. */
  delete(key: string): Promise<void>
  /** Every committed blob, for sweeping blobs that have no record. */
  list(): AsyncIterable<StoredBlob>
  /** Removes what unfinished writers left behind, older than `olderThanMs` and not under `keep`. */
  sweepUnfinished(olderThanMs: number, keep: ReadonlySet<string>): Promise<number>
  /** Throws when the storage does not answer (health check). */
  check(): Promise<void>
  /**
   * Prepares the store for the chunks of session `key` (blob of `size` bytes, chunks asked of
   * `chunkSize`) and answers what `putChunk` and `joinChunks` take for it (S3: the UploadId of
   * the blob's multipart upload; the filesystem: the layout of the session file), or null.
   */
  startChunks(key: string, size: number, chunkSize: number): Promise<string | null>
  /** Discards what `startChunks` prepared; what is gone already counts as discarded. */
  abortChunks(key: string, upload: string): Promise<void>
  /**
   * Stores one chunk, durable before it resolves, apart from other indexes and other attempts at
   * this index (or replacing them); fails, leaving nothing a join takes, when `body` fails or
   * does not bring exactly `length` bytes. With `durable` false (a chunk of a session that ends
   * with this process) a store may leave its bytes to be made durable by the join.
   */
  putChunk(
    key: string,
    index: number,
    body: ChunkBody,
    length: number,
    upload: string | null,
    durable?: boolean,
  ): Promise<StoredChunk>
  /** Joins the recorded chunks, in order, into the blob `key`; a failed join leaves no blob. */
  joinChunks(key: string, chunks: readonly StoredChunk[], upload: string | null): Promise<void>
  /**
   * Removes stored chunks; a chunk that does not exist counts as removed, and one stored in the
   * session's upload or file goes with it (`joinChunks` or `abortChunks`).
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

/** The text form of a UUID, which every blob key is. */
export const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'

/** The name of a stored chunk: `<key>.<index>.<random>`, the first and last UUIDs. */
export const CHUNK_NAME = new RegExp(`^(${UUID})\\.[0-9]{1,16}\\.${UUID}$`)

/** A new name for chunk `index` of blob `key`, which no other attempt at that index shares. */
export function newChunkName(key: string, index: number): string {
  assertBlobKey(key)
  return `${key}.${index}.${randomUUID()}`
}

/** The session key of a stored chunk's name, or null for another name. */
export function chunkSessionOf(name: string): string | null {
  return CHUNK_NAME.exec(name)?.[1] ?? null
}

/** A blob opened for a download the server sends; one that is never read must be closed. */
export interface OpenedBlob {
  /**
   * Writes the blob's `length` bytes to `out` with its backpressure, then ends it; resolves once
   * done or once `out` closed early. A failed read, or a blob shorter or longer than `length`
   * (damaged storage), destroys `out` and rejects, so the client sees a cut-off body at once.
   */
  pipeTo(out: Writable, length: number): Promise<void>
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
  if (store.open) return { blob: await store.open(key, bounds) }
  throw new Error(`The ${store.kind} store can neither open nor presign a blob`)
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

const KEY_PATTERN = new RegExp(`^${UUID}$`)

export function isBlobKey(key: string): boolean {
  return KEY_PATTERN.test(key)
}

/** Defense in depth: a key that is not a UUID never reaches a path or an object name. */
export function assertBlobKey(key: string): void {
  if (!isBlobKey(key)) throw new Error(`Refusing blob key ${JSON.stringify(key)}`)
}
