/**
 * What every fileshare-admin command works on: the server's config, migrated database, blob store
 * and services, without HTTP or timers; beside a running server too (SQLite's WAL takes a second
 * process's statements, and PostgreSQL is shared by design).
 * May touch: the database and the blob store it opens; the file system (whether the SQLite
 * file exists); process state (stderr, for the log).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'

import type { Config } from '../config.js'
import { openDatabase } from '../db/open-database.js'
import { leaderLock } from '../db/leader-lock.js'
import { createLogger } from '../logger.js'
import { CleanupJob } from '../ops/cleanup.js'
import { createServices } from '../composition/container.js'
import { Inventory } from '../ops/inventory.js'
import { openBlobStore } from '../storage/open-blob-store.js'
import { AdminError } from './admin-error.js'

export type AdminContext = Awaited<ReturnType<typeof openAdminContext>>

export async function openAdminContext(config: Config) {
  // A mistyped DATA_DIR would otherwise get a new, empty database and report nothing.
  const sqliteFile = join(config.dataDir, 'fileshare.db')
  if (config.databaseUrl === null && !existsSync(sqliteFile)) {
    throw new AdminError(
      `no database at ${sqliteFile}: set DATA_DIR (or DATABASE_URL) as the server has it`,
    )
  }
  // Everything the services log goes to stderr, so stdout carries only the command's answer.
  const logger = createLogger(config.logLevel === 'silent' ? 'silent' : 'warn', {
    stdout: process.stderr,
    stderr: process.stderr,
  })
  const db = await openDatabase(config)
  try {
    const blobs = await openBlobStore(config)
    const now = Date.now
    const services = await createServices(config, db, blobs, logger, now)
    const leader = leaderLock(db, () => undefined)
    const cleanup = new CleanupJob({ config, db, blobs, services, logger, leader, now })
    return {
      config,
      db,
      blobs,
      services,
      cleanup,
      inventory: new Inventory(db, blobs),
      close: () => db.close(),
    }
  } catch (error) {
    await db.close()
    throw error
  }
}
