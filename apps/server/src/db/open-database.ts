/**
 * Opens the configured database: SQLite under DATA_DIR, or PostgreSQL when DATABASE_URL is set.
 * Each driver module loads only when chosen, so a PostgreSQL server never loads SQLite's driver.
 * May touch: nothing directly; sqlite.ts or postgres.ts opens the database.
 */
import type { Db } from './client.js'
import type { SqliteDriverSetting } from './sqlite-connection.js'

export interface DatabaseSettings {
  dataDir: string
  /** A postgres:// address selects PostgreSQL; null keeps SQLite under dataDir. */
  databaseUrl: string | null
  databasePoolSize: number
  /** The SQLite driver (sqlite-driver.ts), auto when not given; PostgreSQL ignores it. */
  sqliteDriver?: SqliteDriverSetting
}

export async function openDatabase(settings: DatabaseSettings): Promise<Db> {
  if (settings.databaseUrl === null) {
    const { openSqlite } = await import('./sqlite.js')
    return openSqlite(settings.dataDir, settings.sqliteDriver)
  }
  const { openPostgres } = await import('./postgres.js')
  return openPostgres(settings.databaseUrl, settings.databasePoolSize)
}
