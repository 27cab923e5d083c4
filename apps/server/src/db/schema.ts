/**
 * The schema on SQLite: the tables of tables.ts in SQLite's column types, where every number is
 * an `integer`, a flag an integer in boolean mode, a blob a Buffer and a list JSON text. What
 * drizzle-kit reads for SQLite's migrations (drizzle/). The services see these tables typed as
 * PostgreSQL's (db/client.ts), which have the same property names.
 * May touch: nothing (pure).
 */
import * as sqlite from 'drizzle-orm/sqlite-core'

import { defineTables, type Columns } from './tables.js'

const sqliteColumns = {
  table: sqlite.sqliteTable,
  text: (name: string) => sqlite.text(name),
  int: (name: string) => sqlite.integer(name),
  long: (name: string) => sqlite.integer(name),
  flag: (name: string) => sqlite.integer(name, { mode: 'boolean' }),
  bytes: (name: string) => sqlite.blob(name, { mode: 'buffer' }),
  intList: (name: string) => sqlite.text(name, { mode: 'json' }).$type<number[]>(),
  serialKey: (name: string) => sqlite.integer(name).primaryKey({ autoIncrement: true }),
  index: sqlite.index,
  uniqueIndex: sqlite.uniqueIndex,
  primaryKey: sqlite.primaryKey,
  check: sqlite.check,
}

// Built with SQLite's builders at run time; typed as PostgreSQL's, as the services see them.
export const {
  uploads,
  notes,
  uploadQuota,
  blobDeletions,
  settings,
  fileRequests,
  requestUploads,
  requestDailyCounts,
  tombstones,
  reports,
  rateLimitWindows,
  lockouts,
  uploadSessions,
  chunkParts,
  notifications,
  apiTokens,
  readGrants,
} = defineTables(sqliteColumns as unknown as Columns)
