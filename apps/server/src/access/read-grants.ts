/**
 * Read grants (docs/api.md, Read grants): a counted download of an upload or of an inbox file
 * that asks for one gets a random token that reads ranges of the same item again, without
 * counting, until it lapses. Only the SHA-256 hash of a token is stored; the grant goes with what
 * it reads (a foreign key) and the cleanup job sweeps lapsed ones.
 * May touch: table read_grants.
 */
import { ERROR_MESSAGES, toBase64Url } from '@fileshare/protocol'
import { and, eq, gt, lte, sql, type Column } from 'drizzle-orm'
import { randomBytes } from 'node:crypto'

import type { Db, Executor } from '../db/client.js'
import { HttpError } from '../http-error.js'
import { hashToken, tokenBytes } from './tokens.js'

/** Grant tokens carry as many random bytes as the other bearer tokens. */
const GRANT_BYTES = 32

/** What a grant reads: a stored upload, or a file in a request's inbox. */
export type GrantHolder = 'uploadId' | 'requestUploadId'

export interface IssuedGrant {
  token: string
  /** Milliseconds since the epoch. */
  expiresAt: number
}

export class ReadGrants {
  constructor(
    /** `grantTtlMs` is DOWNLOAD_GRANT_TTL_SEC in milliseconds. */
    private readonly deps: { db: Db; grantTtlMs: number; now: () => number },
    private readonly holder: GrantHolder,
  ) {}

  async issue(id: string): Promise<IssuedGrant> {
    const bytes = randomBytes(GRANT_BYTES)
    const expiresAt = this.deps.now() + this.deps.grantTtlMs
    const { readGrants } = this.deps.db.tables
    await this.deps.db.query
      .insert(readGrants)
      .values({ tokenHash: hashToken(bytes), [this.holder]: id, expiresAt })
    return { token: toBase64Url(bytes), expiresAt }
  }

  /** Admits a grant for item `id`: 401 if missing, malformed, unknown or another's; 410 lapsed. */
  async admit(id: string, presented: string | undefined): Promise<void> {
    const bytes = tokenBytes(presented)
    const { readGrants } = this.deps.db.tables
    // Looked up by the token's hash, which only the holder of the token can name.
    const [grant] =
      bytes === null || bytes.length !== GRANT_BYTES
        ? []
        : await this.deps.db.query
            .select()
            .from(readGrants)
            .where(and(eq(readGrants.tokenHash, hashToken(bytes)), eq(readGrants[this.holder], id)))
    if (grant === undefined) throw new HttpError(401, ERROR_MESSAGES.invalidReadGrant)
    if (grant.expiresAt <= this.deps.now()) {
      throw new HttpError(410, ERROR_MESSAGES.readGrantExpired)
    }
  }

  /** The subquery, for a cleanup's DELETE, of the grants for row `idColumn` lasting at `now`. */
  lasting(tx: Executor, idColumn: Column, now: number) {
    const { readGrants } = this.deps.db.tables
    return tx
      .select({ one: sql`1` })
      .from(readGrants)
      .where(and(eq(readGrants[this.holder], idColumn), gt(readGrants.expiresAt, now)))
  }

  async sweep(tx: Executor, now: number): Promise<void> {
    const { readGrants } = this.deps.db.tables
    await tx.delete(readGrants).where(lte(readGrants.expiresAt, now))
  }
}
