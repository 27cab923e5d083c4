import { getTableConfig as pgTableConfig, PgTable } from 'drizzle-orm/pg-core'
import { getTableConfig as sqliteTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { is } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'

import * as sqlite from './schema.js'
import * as pg from './schema-pg.js'

/** Each table as the services see it: property → column name, nullability, default, key. */
function describeTables(tables: Record<string, unknown>, dialect: 'sqlite' | 'pg') {
  const out: Record<string, unknown> = {}
  for (const [name, table] of Object.entries(tables)) {
    const config =
      dialect === 'pg' && is(table, PgTable)
        ? pgTableConfig(table)
        : dialect === 'sqlite' && is(table, SQLiteTable)
          ? sqliteTableConfig(table)
          : undefined
    if (!config) continue
    const columns = Object.fromEntries(
      Object.entries(
        table as Record<
          string,
          { name: string; notNull: boolean; primary: boolean; hasDefault: boolean }
        >,
      )
        .filter(([, column]) => config.columns.some((c) => c === (column as unknown)))
        .map(([property, c]) => [property, [c.name, c.notNull, c.primary, c.hasDefault]]),
    )
    out[name] = {
      name: config.name,
      columns,
      primaryKeys: config.primaryKeys.map((k) => k.columns.map((c) => c.name)),
      indexes: config.indexes.map((i) => i.config.name).sort(),
      foreignKeys: config.foreignKeys.map((f) => f.reference().foreignTable).length,
    }
  }
  return out
}

describe('the SQLite and PostgreSQL schemas', () => {
  it('have the same tables, properties, column names, keys and indexes', () => {
    const sqliteTables = describeTables(sqlite, 'sqlite')
    expect(Object.keys(sqliteTables).length).toBeGreaterThan(5)
    expect(describeTables(pg, 'pg')).toEqual(sqliteTables)
  })
})
