/**
 * Opens the configured database: SQLite under DATA_DIR, or PostgreSQL when DATABASE_URL is set.
 * Each driver module loads only when chosen, so a PostgreSQL server never loads SQLite's driver.
 * May touch: nothing directly; sqlite.ts or postgres.ts opens the database.
 */
import type { Config } from '../config.js'
import type { Db } from './client.js'

/** The database settings of Config; the SQLite driver is auto when not given. */
type DatabaseSettings = Pick<Config, 'dataDir' | 'databaseUrl' | 'databasePoolSize'> &
  Partial<Pick<Config, 'sqliteDriver'>>

export async function openDatabase(settings: DatabaseSettings): Promise<Db> {
  if (settings.databaseUrl === null) {
    const { openSqlite } = await import('./sqlite.js')
    return openSqlite(settings.dataDir, settings.sqliteDriver)
  }
  const { openPostgres } = await import('./postgres.js')
  return openPostgres(settings.databaseUrl, settings.databasePoolSize)
}
