/**
 * Services reach the database only through drizzle's query builders on the open dialect's tables:
 * no SQL text, no driver handle, no driver-specific result (`changes`), no synchronous query, so
 * that SQLite and PostgreSQL are drivers behind the same services.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { describe, expect, it } from 'vitest'

const SOURCE = fileURLToPath(new URL('.', import.meta.url))
/** The folders of the services, by domain; db/ and storage/ hold the drivers themselves. */
const SERVICE_FOLDERS = [
  'access',
  'limits',
  'notes',
  'notify',
  'ops',
  'records',
  'requests',
  'sessions',
  'uploads',
]

const FORBIDDEN: Record<string, RegExp> = {
  'the driver module': /from '(better-sqlite3|node:sqlite|pg)'/,
  "one dialect's tables (they come from db.tables)": /^import \{[^}]*\} from '[./]+db\/schema/m,
  "a synchronous driver's query": /(?<!\bthis)\.(get|all|run)\(\)/,
  'the driver handle': /\$client/,
  'a SQL statement in a string':
    /['"`]\s*(select|insert|update|delete|replace)\s+(\*|into|from|or|[a-z_]+\s+set)\b/i,
  'a changed-rows count': /\.changes\b/,
  "SQLite's two-argument max()": /\bmax\(\$\{/,
  'SQLite-only upserts': /\b(insert|replace)\s+or\s+(ignore|replace)\b/i,
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
  })
}

describe('data access in services', () => {
  const files = SERVICE_FOLDERS.flatMap((folder) => sources(join(SOURCE, folder)))

  it('finds the service modules', () => {
    expect(files.map((file) => file.slice(SOURCE.length))).toContain('notes/notes.ts')
  })

  it.each(files.map((file) => [file.slice(SOURCE.length), file]))(
    '%s uses drizzle only',
    (_name, file) => {
      const text = readFileSync(file, 'utf8')
      const found = Object.entries(FORBIDDEN)
        .filter(([, pattern]) => pattern.test(text))
        .map(([what]) => what)
      expect(found).toEqual([])
    },
  )
})
