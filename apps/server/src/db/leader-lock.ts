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

export type LeaderLock = ReturnType<typeof leaderLock>

export function leaderLock(db: Db, onChange: (leading: boolean) => void) {
  // SQLite's single instance always leads.
  if (db.dialect === 'sqlite') return { acquire: async () => true, release: async () => {} }
  const { pool } = db as PostgresDb
  let client: pg.Client | undefined
  let leading = false
  const lead = (now: boolean) => {
    if (now === leading) return
    leading = now
    onChange(now)
  }

  const drop = async () => {
    const dropped = client
    client = undefined
    await dropped?.end().catch(() => undefined)
  }

  const connect = async (): Promise<pg.Client> => {
    // Loaded here, not at the top: a server on SQLite never loads the PostgreSQL driver.
    const { default: driver } = await import('pg')
    const connection = new driver.Client({
      ...pool.options,
      application_name: `${CLEANUP_APPLICATION_NAME} ${process.pid}`,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    })
    // A dropped connection shows as a failed query in the next round.
    connection.on('error', () => undefined)
    await connection.connect().catch(async (error: unknown) => {
      await connection.end().catch(() => undefined)
      throw error
    })
    return connection
  }

  return {
    /** Whether this instance may lead now: takes the lock when free, or confirms it still holds it. */
    async acquire() {
      let locked = false
      try {
        client ??= await connect()
        // Asked again on every round: a connection that broke since answers with an error, and
        // one that still holds the lock answers true (the lock is re-entrant within its session).
        const { rows } = await client.query<{ locked: boolean }>(
          'SELECT pg_try_advisory_lock($1) AS locked',
          [CLEANUP_LOCK_KEY],
        )
        locked = rows[0]?.locked === true
        // A follower keeps no connection open; only the holder needs one.
        if (!locked) await drop()
      } catch {
        await drop()
      }
      lead(locked)
      return locked
    },

    /** Gives the lock up (closing its connection), so another instance can take it at once. */
    async release() {
      // Unlocked before the connection ends, so the next instance to ask finds the lock free.
      await client?.query('SELECT pg_advisory_unlock_all()').catch(() => undefined)
      await drop()
      lead(false)
    },
  }
}
