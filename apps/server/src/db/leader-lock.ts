/**
 * Which instance runs the background work (ops/cleanup.ts). On SQLite there is one instance,
 * so it always does. On PostgreSQL the instance that holds a session-level advisory lock on a
 * connection of its own does: PostgreSQL releases the lock when that connection ends, so when the
 * holder dies (even SIGKILL) the next instance to ask takes over.
 * May touch: the network (a PostgreSQL connection of its own, holding the advisory lock);
 * process state (its pid, in the connection's name).
 */
import type pg from 'pg'

import type { Db } from './client.js'
import type { PostgresDb } from './postgres.js'

/** The advisory lock key of the background work (distinct from the migrations' key). */
export const CLEANUP_LOCK_KEY = 0x636c6e75

/** The lock connection's `application_name` (with the pid), to find the holder in pg_locks. */
export const CLEANUP_APPLICATION_NAME = 'fileshare-cleanup'

/** How long connecting for the lock may take before this round gives up. */
const CONNECT_TIMEOUT_MS = 5_000

export interface LeaderLock {
  /** Whether this instance may lead now: takes the lock when free, or confirms it still holds it. */
  acquire(): Promise<boolean>
  /** Gives the lock up (closing its connection), so another instance can take it at once. */
  release(): Promise<void>
}

/** SQLite's single instance always leads. */
const ALWAYS: LeaderLock = {
  acquire: () => Promise.resolve(true),
  release: () => Promise.resolve(),
}

export function leaderLock(db: Db, onChange: (leading: boolean) => void): LeaderLock {
  if (db.dialect === 'sqlite') return ALWAYS
  return new AdvisoryLeaderLock(db as PostgresDb, onChange)
}

class AdvisoryLeaderLock implements LeaderLock {
  private client: pg.Client | undefined
  private leading = false

  constructor(
    private readonly db: PostgresDb,
    private readonly onChange: (leading: boolean) => void,
  ) {}

  async acquire(): Promise<boolean> {
    let leading = false
    try {
      this.client ??= await this.connect()
      // Asked again on every round: a connection that broke since answers with an error, and one
      // that still holds the lock answers true (the lock is re-entrant within its session).
      const { rows } = await this.client.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_lock($1) AS locked',
        [CLEANUP_LOCK_KEY],
      )
      leading = rows[0]?.locked === true
      // A follower keeps no connection open; only the holder needs one.
      if (!leading) await this.drop()
    } catch {
      await this.drop()
    }
    if (leading !== this.leading) {
      this.leading = leading
      this.onChange(leading)
    }
    return leading
  }

  async release(): Promise<void> {
    // Unlocked before the connection ends, so the next instance to ask finds the lock free.
    await this.client?.query('SELECT pg_advisory_unlock_all()').catch(() => undefined)
    await this.drop()
    if (this.leading) {
      this.leading = false
      this.onChange(false)
    }
  }

  private async connect(): Promise<pg.Client> {
    const options = this.db.pool.options
    // Loaded here, not at the top: a server on SQLite never loads the PostgreSQL driver.
    const { default: driver } = await import('pg')
    const client = new driver.Client({
      ...options,
      application_name: `${CLEANUP_APPLICATION_NAME} ${process.pid}`,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    })
    // A dropped connection shows as a failed query in the next round.
    client.on('error', () => undefined)
    try {
      await client.connect()
    } catch (error) {
      await client.end().catch(() => undefined)
      throw error
    }
    return client
  }

  private async drop(): Promise<void> {
    const client = this.client
    this.client = undefined
    await client?.end().catch(() => undefined)
  }
}
