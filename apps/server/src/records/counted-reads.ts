/**
 * Counted downloads with read grants, shared by uploads and inbox files (docs/api.md, Read
 * grants). The count is one conditional UPDATE (spec: File upload states, "downloadCount + 1
 * atomically") that also notes its time, since the blob must outlive a presigned URL handed out
 * then (blob-janitor.ts); a blob that cannot be handed out gives the download back. A counted
 * download that asks for one gets a grant: a random token that reads ranges of the same item
 * again, without counting, until it lapses. Only the SHA-256 hash of a grant is stored; it goes
 * with what it reads (a foreign key) and the cleanup job sweeps lapsed ones. Callers admit the
 * reader and check the item first. The cleanup of finished items of either kind is here too.
 * May touch: tables uploads or request_uploads (the counted one), read_grants; the
 * blob store (reads); blob removal through blob-janitor.ts.
 */
import { randomBytes } from 'node:crypto'

import { ERROR_MESSAGES, HEADERS, parseByteRange, toBase64Url } from '@fileshare/protocol'
import { and, eq, gt, gte, lt, lte, notExists, or, sql, type SQL } from 'drizzle-orm'

import { hashToken, tokenBytes } from '../access/tokens.js'
import type { Db, Executor } from '../db/client.js'
import { decrement, increment } from '../db/expressions.js'
import type { requestUploads, uploads } from '../db/schema-pg.js'
import { HttpError } from '../http-error.js'
import type { BlobJanitor, RetiredCount } from './blob-janitor.js'
import {
  deliverBlob,
  type BlobDelivery,
  type BlobStore,
  type OpenedBlob,
} from '../storage/blob-store.js'

/** Grant tokens carry as many random bytes as the other bearer tokens. */
const GRANT_BYTES = 32

export interface IssuedGrant {
  token: string
  /** Milliseconds since the epoch. */
  expiresAt: number
}

/** Bytes `start` up to `end` (exclusive). */
interface ByteBounds {
  start: number
  end: number
}

/** The sizes of a counted item, which its reads answer with. */
interface ItemSizes {
  size: number
  fileCount: number
}

/** A counted download of an item: its sizes beside the handout. */
export interface DownloadResult extends ItemSizes {
  delivery: BlobDelivery
  /** The read grant asked for with the download; only a download the server sends has one. */
  grant?: IssuedGrant
  /** The byte range asked for with the grant (docs/api.md): the answer is these bytes alone. */
  range?: ByteBounds
}

/** Bytes `start` up to `end` (exclusive) of an item, read under a grant without counting. */
export interface GrantedRead extends ByteBounds, ItemSizes {
  blob: OpenedBlob
}

/** What the cleanup keeps of a finished item it deletes, for its blob (BlobJanitor.holdForUrls). */
type RetiredItem = Pick<typeof uploads.$inferSelect, 'id' | 'lastDownloadAt'>

/** What one kind of item is: its table, the name of its prepared statements, its grants' column. */
interface CountedKind {
  table: typeof uploads | typeof requestUploads
  name: string
  holder: 'uploadId' | 'requestUploadId'
}

export class CountedReads {
  // Both statements prepared once, since every download runs them; PostgreSQL names them.
  private readonly take
  private readonly giveBack

  constructor(
    /** `grantTtlMs` is DOWNLOAD_GRANT_TTL_SEC in milliseconds. */
    private readonly deps: {
      db: Db
      blobs: BlobStore
      janitor: BlobJanitor
      grantTtlMs: number
      now: () => number
    },
    private readonly kind: CountedKind,
  ) {
    const { table, name } = kind
    const ID = sql.placeholder('id')
    const NOW = sql.placeholder('now')
    this.take = deps.db.query
      .update(table)
      .set({ downloadCount: increment(table.downloadCount), lastDownloadAt: sql`${NOW}` })
      .where(
        and(
          eq(table.id, ID),
          lt(table.downloadCount, table.maxDownloads),
          gt(table.expiresAt, NOW),
        ),
      )
      .returning({ id: table.id })
      .prepare(`${name}_take_download`)
    this.giveBack = deps.db.query
      .update(table)
      .set({ downloadCount: decrement(table.downloadCount) })
      .where(and(eq(table.id, ID), gt(table.downloadCount, 0)))
      .prepare(`${name}_give_back_download`)
  }

  /**
   * Counts one download of item `id` (410 when expired or used up), then opens the blob or
   * presigns its URL. With `withGrant`, a download the server sends also issues a read grant, and
   * a `range` asked for with it is checked before the count and answered alone.
   */
  async deliver(
    id: string,
    item: ItemSizes,
    withGrant: boolean,
    range: string | undefined,
  ): Promise<DownloadResult> {
    const { size, fileCount } = item
    const bounds = withGrant && range !== undefined ? boundsOf(range, size) : undefined
    const [taken] = await this.take.execute({ id, now: this.deps.now() })
    if (taken === undefined) throw new HttpError(410, ERROR_MESSAGES.uploadUnavailable)
    let delivery: BlobDelivery
    try {
      delivery = await deliverBlob(this.deps.blobs, id, bounds)
    } catch (error) {
      await this.giveBack.execute({ id })
      throw error
    }
    if (!withGrant || !('blob' in delivery)) return { size, fileCount, delivery }
    // The grant comes last, once the bytes it goes with are open: a handout that fails before
    // it leaves no grant behind, and gives its count back with the blob.
    try {
      const grant = await this.issueGrant(id)
      return { size, fileCount, delivery, grant, ...(bounds ? { range: bounds } : {}) }
    } catch (error) {
      await delivery.blob.close()
      await this.giveBack.execute({ id })
      throw error
    }
  }

  private async issueGrant(id: string): Promise<IssuedGrant> {
    const bytes = randomBytes(GRANT_BYTES)
    const expiresAt = this.deps.now() + this.deps.grantTtlMs
    await this.deps.db.query
      .insert(this.deps.db.tables.readGrants)
      .values({ tokenHash: hashToken(bytes), [this.kind.holder]: id, expiresAt })
    return { token: toBase64Url(bytes), expiresAt }
  }

  /**
   * Reads `range` (or all) of item `id` under a grant, uncounted: 410 once the item expired (a
   * download limit reached since does not end the grant), 401 when the grant is missing,
   * malformed, unknown or another item's, 410 when it lapsed, else 416 for the range.
   */
  async readGranted(
    id: string,
    item: ItemSizes & { expiresAt: number },
    grant: string | undefined,
    range: string | undefined,
  ): Promise<GrantedRead> {
    const { db, blobs, now } = this.deps
    const { size, fileCount } = item
    if (item.expiresAt <= now()) throw new HttpError(410, ERROR_MESSAGES.uploadUnavailable)
    const { readGrants } = db.tables
    const bytes = tokenBytes(grant)
    // Looked up by the token's hash, which only the holder of the token can name.
    const [found] =
      bytes === null || bytes.length !== GRANT_BYTES
        ? []
        : await db.query
            .select()
            .from(readGrants)
            .where(
              and(eq(readGrants.tokenHash, hashToken(bytes)), eq(readGrants[this.kind.holder], id)),
            )
    if (found === undefined) throw new HttpError(401, ERROR_MESSAGES.invalidReadGrant)
    if (found.expiresAt <= now()) throw new HttpError(410, ERROR_MESSAGES.readGrantExpired)
    const bounds = range === undefined ? { start: 0, end: size } : boundsOf(range, size)
    // A store without ranges (S3) issues no grant, so none reaches here.
    if (!blobs.open) throw new HttpError(401, ERROR_MESSAGES.invalidReadGrant)
    return { size, fileCount, ...bounds, blob: await blobs.open(id, bounds) }
  }

  /**
   * Cleanup (spec: File upload states, "cleanup job"): in one transaction, deletes the lapsed
   * grants of every kind, then by `remove` the finished items, whose condition it is given; then
   * their blobs (record first, so an id never points at a missing blob) but those a presigned URL
   * may still fetch (blob-janitor.ts). A used-up item stays while a read grant for it lasts.
   */
  async retireFinished(
    remove: (tx: Executor, finished: SQL | undefined) => Promise<RetiredItem[]>,
  ): Promise<RetiredCount> {
    const { janitor } = this.deps
    const { table, holder } = this.kind
    const { readGrants } = this.deps.db.tables
    const now = this.deps.now()
    const { removed, blobs } = await this.deps.db.transaction(async (tx) => {
      await tx.delete(readGrants).where(lte(readGrants.expiresAt, now))
      // Finished: expired, or used up with no read grant lasting (already counted).
      const granted = tx
        .select({ one: sql`1` })
        .from(readGrants)
        .where(and(eq(readGrants[holder], table.id), gt(readGrants.expiresAt, now)))
      const finished = or(
        lte(table.expiresAt, now),
        and(gte(table.downloadCount, table.maxDownloads), notExists(granted)),
      )
      const rows = await remove(tx, finished)
      return { removed: rows.length, blobs: await janitor.holdForUrls(tx, rows) }
    })
    const queued = await janitor.removeAll(blobs.removeNow)
    return { removed, queued, held: blobs.held }
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
