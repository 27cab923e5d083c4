/**
 * The schema on PostgreSQL: the tables of tables.ts in PostgreSQL's column types, where times and
 * byte counts are `bigint` read as JavaScript numbers, flags `boolean` and blobs `bytea`. What
 * drizzle-kit reads for PostgreSQL's migrations (drizzle-pg/).
 * May touch: nothing (pure).
 */
import { defineTables, pgColumns } from './tables.js'

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
} = defineTables(pgColumns)
