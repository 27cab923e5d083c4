/**
 * Counted downloads with read grants, shared by uploads and inbox files (docs/api.md, Read
 * grants): a download is counted, and when asked for issues a grant and answers a range of it; a
 * read under a grant answers a range without counting. Callers admit the reader and check the item
 * first.
 * May touch: tables uploads or request_uploads (the counted one), read_grants; the
 * blob store (reads).
 */
import { ERROR_MESSAGES, parseByteRange, HEADERS } from '@fileshare/protocol'
import { and, gte, lte, notExists, or, type SQL } from 'drizzle-orm'

import type { Db, Executor } from '../db/client.js'
import { HttpError } from '../http-error.js'
import { ReadGrants, type GrantHolder, type IssuedGrant } from '../access/read-grants.js'
import type { BlobDelivery, BlobStore, OpenedBlob } from '../storage/blob-store.js'
import { DownloadCounter, type CountedTable } from './download-counter.js'

/** Bytes `start` up to `end` (exclusive). */
export interface ByteBounds {
  start: number
  end: number
}

export interface CountedHandout {
  delivery: BlobDelivery
  /** The read grant asked for with the download; only a download the server sends has one. */
  grant?: IssuedGrant
  /** The byte range asked for with the grant (docs/api.md): the answer is these bytes alone. */
  range?: ByteBounds
}

/** A counted download of an item: its sizes beside the handout. */
export interface DownloadResult extends CountedHandout {
  size: number
  fileCount: number
}

/** Bytes `start` up to `end` (exclusive) of an item, read under a grant without counting. */
export interface GrantedRead extends ByteBounds {
  size: number
  fileCount: number
  blob: OpenedBlob
}

export interface CountedReadsDeps {
  db: Db
  blobs: BlobStore
  /** DOWNLOAD_GRANT_TTL_SEC in milliseconds. */
  grantTtlMs: number
  now: () => number
}

/** What one kind of item is: its table, the name of its prepared statements, its grants' column. */
export interface CountedKind {
  table: CountedTable
  name: string
  holder: GrantHolder
}

export class CountedReads {
  private readonly counter: DownloadCounter
  private readonly grants: ReadGrants

  constructor(
    private readonly deps: CountedReadsDeps,
    private readonly kind: CountedKind,
  ) {
    this.counter = new DownloadCounter(deps.db, kind.table, kind.name, deps.blobs)
    const { db, grantTtlMs: ttlMs, now } = deps
    this.grants = new ReadGrants({ db, ttlMs, now }, kind.holder)
  }

  /**
   * Counts one download of item `id` of `size` bytes atomically, then opens the blob or, on S3,
   * presigns its URL. With `withGrant`, a download the server sends also issues a read grant; a
   * presigned URL reads ranges itself. A `range` asked for with the grant is checked before the
   * download is counted, and the answer is those bytes alone.
   */
  async deliver(
    id: string,
    size: number,
    withGrant: boolean,
    range: string | undefined,
  ): Promise<CountedHandout> {
    const bounds = withGrant && range !== undefined ? boundsOf(range, size) : undefined
    const delivery = await this.counter.deliver(id, this.deps.now(), bounds)
    if (!withGrant || !('blob' in delivery)) return { delivery }
    // The grant comes last, once the bytes it goes with are open: a handout that fails before
    // it leaves no grant behind, and gives its count back with the blob.
    try {
      const grant = await this.grants.issue(id)
      return bounds === undefined ? { delivery, grant } : { delivery, grant, range: bounds }
    } catch (error) {
      await delivery.blob.close()
      await this.counter.giveBack(id)
      throw error
    }
  }

  /**
   * Reads a range of item `id` of `size` bytes under a grant, without counting: 401 or 410 for
   * the grant, 416 for a `range` that is not one satisfiable byte range. Without `range`, the
   * whole blob.
   */
  async readGranted(
    id: string,
    size: number,
    grant: string | undefined,
    range: string | undefined,
  ): Promise<ByteBounds & { blob: OpenedBlob }> {
    await this.grants.admit(id, grant)
    const bounds = range === undefined ? { start: 0, end: size } : boundsOf(range, size)
    return { ...bounds, blob: await this.openRange(id, bounds) }
  }

  /**
   * The cleanup's condition for the items that are done by `now`: expired, or used up with no
   * read grant lasting (the grant is for a download already counted).
   */
  finished(tx: Executor, now: number): SQL | undefined {
    const { table } = this.kind
    const granted = this.grants.lasting(tx, table.id, now)
    return or(
      lte(table.expiresAt, now),
      and(gte(table.downloadCount, table.maxDownloads), notExists(granted)),
    )
  }

  /** Deletes the grants that lapsed by `now`, in the cleanup job's transaction. */
  sweepGrants(tx: Executor, now: number): Promise<void> {
    return this.grants.sweep(tx, now)
  }

  /** Opens bytes of a blob; a store without ranges (S3) issues no grant, so none reaches here. */
  private openRange(id: string, bounds: ByteBounds): Promise<OpenedBlob> {
    const { openRange } = this.deps.blobs
    if (!openRange) throw new HttpError(401, ERROR_MESSAGES.invalidReadGrant)
    return openRange.call(this.deps.blobs, id, bounds.start, bounds.end)
  }
}

/** One satisfiable byte range of a blob of `size` bytes, or 416 with the size (RFC 9110). */
function boundsOf(range: string, size: number): ByteBounds {
  const bounds = parseByteRange(range, size)
  if (bounds === null || bounds.start >= bounds.end) {
    throw new HttpError(416, ERROR_MESSAGES.rangeNotSatisfiable, {
      headers: { [HEADERS.contentRange]: `bytes */${size}` },
    })
  }
  return bounds
}
