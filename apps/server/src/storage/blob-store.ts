/**
 * The narrow interface every storage backend implements. Keys are server-generated UUIDs, never
 * user input. A blob becomes readable only after `commit()`; until then it is invisible and
 * `abort()` (or a crash, swept by `sweepUnfinished()`) leaves nothing behind.
 */
export interface BlobWriter {
  /** Appends bytes; resolves when the store is ready for more (this is the backpressure). */
  write(chunk: Uint8Array): Promise<void>
  /** Makes the blob durable and visible under its key. */
  commit(): Promise<void>
  /** Discards everything written; safe to call more than once and after a failure. */
  abort(): Promise<void>
  readonly bytesWritten: number
}

export interface StoredBlob {
  key: string
  size: number
  modifiedAt: number
}

export interface BlobStore {
  readonly kind: 'filesystem' | 's3'
  create(key: string): Promise<BlobWriter>
  /** A stream of the whole blob; fails if it does not exist. */
  read(key: string): Promise<ReadableStream<Uint8Array>>
  /**
   * A time-limited URL from which a client fetches the blob itself; fails if it does not exist.
   * Only stores that clients can reach directly have it (S3: spec, What the service does, 7).
   */
  presign?(key: string): Promise<string>
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
}

/** How a counted download reaches the client: streamed by the server, or fetched from a URL. */
export type BlobDelivery = { stream: ReadableStream<Uint8Array> } | { url: string }

/** Opens a blob for a download the way its store serves it; fails if the blob does not exist. */
export async function deliverBlob(store: BlobStore, key: string): Promise<BlobDelivery> {
  return store.presign ? { url: await store.presign(key) } : { stream: await store.read(key) }
}

const KEY_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Defense in depth: a key that is not a UUID never reaches a path or an object name. */
export function assertBlobKey(key: string): void {
  if (!KEY_PATTERN.test(key)) throw new Error(`Refusing blob key ${JSON.stringify(key)}`)
}
