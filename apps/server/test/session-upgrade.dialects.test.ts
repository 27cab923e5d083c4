/**
 * The upgrade that puts every upload session in one table (upload_sessions): a database left by
 * the release before it, with a session under way in each of its two session tables, carries
 * both over. Each then answers its status, and the chunked one takes its chunk and finalizes,
 * recording the quota its row held.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { PATHS } from '@fileshare/protocol'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'

import { hashToken, tokenBytes } from '../src/access/tokens.js'
import { openSqliteConnection } from '../src/db/sqlite-driver.js'
import { decodeQuotaHold } from '../src/sessions/session-holds.js'
import { encodeSpec } from '../src/sessions/stored-contexts.js'
import { followDownload } from './backends.js'
import { dropTestDatabases, querySql, TEST_DIALECT, testPostgres } from './dialects.js'
import { randomToken, startTestServer, type TestServer } from './harness.js'
import { sendChunk } from './uploads.suite.js'

const FOLDER = join(import.meta.dirname, '..', TEST_DIALECT === 'sqlite' ? 'drizzle' : 'drizzle-pg')

/** The migrations of the release before one table held every session. */
async function migrationsBefore() {
  const journal = JSON.parse(await readFile(join(FOLDER, 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string }[]
  }
  const upgrade = journal.entries.findIndex((entry) => entry.tag.endsWith('_upload_sessions'))
  expect(upgrade).toBeGreaterThan(0)
  return readMigrationFiles({ migrationsFolder: FOLDER }).slice(0, upgrade)
}

/** Brings a new database to the release before, as its migrator would have: `run` runs SQL. */
async function migrateBefore(run: (text: string) => Promise<void>, table: string) {
  const migrations = await migrationsBefore()
  for (const migration of migrations) {
    for (const statement of migration.sql) if (statement.trim()) await run(statement)
  }
  await run(`CREATE TABLE ${table} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)`)
  for (const { hash, folderMillis } of migrations) {
    await run(`INSERT INTO ${table} (hash, created_at) VALUES ('${hash}', ${folderMillis})`)
  }
}

/** A database of the release before, run by `fill`; answers the settings that reach it. */
async function databaseBefore(
  dataDir: string,
  fill: (run: (text: string, params?: unknown[]) => Promise<void>) => Promise<void>,
): Promise<Record<string, string>> {
  if (TEST_DIALECT === 'sqlite') {
    const connection = await openSqliteConnection(join(dataDir, 'fileshare.db'), 'auto')
    const run = (text: string, params: unknown[] = []) => {
      // PostgreSQL's numbered parameters, in the order SQLite's anonymous ones take them.
      const order = [...text.matchAll(/\$(\d+)/g)].map((match) => params[Number(match[1]) - 1])
      connection.prepare(text.replaceAll(/\$\d+/g, '?')).run(order)
      return Promise.resolve()
    }
    try {
      await migrateBefore(run, '__drizzle_migrations')
      await fill(run)
    } finally {
      connection.close()
    }
    return {}
  }
  const url = await (await testPostgres()).createDatabase({ empty: true })
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const run = async (text: string, params: unknown[] = []) => {
    await client.query(text, params)
  }
  try {
    await run('CREATE SCHEMA drizzle')
    await migrateBefore(run, 'drizzle.__drizzle_migrations')
    await fill(run)
  } finally {
    await client.end()
  }
  return { DATABASE_URL: url }
}

/** A normal upload's stored context, for the tokens given. */
function context(size: number, authToken: string, ownerToken: string): string {
  return encodeSpec({
    size,
    salt: randomBytes(32).toString('base64url'),
    maxDownloads: 1,
    expireSec: 86400,
    fileCount: 1,
    hasPassword: false,
    passwordSalt: null,
    passwordAlgo: null,
    authTokenHash: hashToken(tokenBytes(authToken)!),
    ownerTokenHash: hashToken(tokenBytes(ownerToken)!),
  })
}

let server: TestServer | undefined
afterAll(async () => {
  await server?.close()
  await dropTestDatabases()
})

describe('the upgrade to one session table', () => {
  it('carries a session under way from each old table, which then goes on', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'fileshare-upgrade-'))
    const now = Date.now()
    const streamed = { id: randomUUID(), size: 4000, owner: randomToken() }
    const chunked = { id: randomUUID(), size: 1500, owner: randomToken(), auth: randomToken() }
    const hold = { clientHash: 'c'.repeat(64), windowStart: now - (now % 86_400_000), bytes: 1500 }
    const env = await databaseBefore(dataDir, async (run) => {
      await run(
        `INSERT INTO streamed_sessions (id, kind, request_id, transport, declared_size,
           bytes_written, next_index, writer_state, context, quota, resumable, holder,
           heartbeat_at, last_activity, created_at)
         VALUES ($1, 'upload', NULL, 'ws', $2, 0, NULL, '{}', $3, '', $4, NULL, $5, $5, $5)`,
        [
          streamed.id,
          streamed.size,
          context(streamed.size, randomToken(), streamed.owner),
          TEST_DIALECT === 'sqlite' ? 1 : true,
          now,
        ],
      )
      await run(
        `INSERT INTO chunk_sessions (id, context, declared_size, received_bytes, next_index,
           written_bytes, request_id, quota_hash, quota_window, quota_bytes, parts_upload, holder,
           heartbeat_at, state, created_at, last_activity)
         VALUES ($1, $2, $3, 0, 0, 0, NULL, $4, $5, $6, NULL, NULL, NULL, 'open', $7, $7)`,
        [
          chunked.id,
          context(chunked.size, chunked.auth, chunked.owner),
          chunked.size,
          hold.clientHash,
          hold.windowStart,
          hold.bytes,
          now,
        ],
      )
      await run(
        'INSERT INTO upload_quota (client_hash, window_start, bytes, held) VALUES ($1, $2, 0, $3)',
        [hold.clientHash, hold.windowStart, hold.bytes],
      )
    })
    server = await startTestServer({ dataDir, env: { ...env, FILE_UPLOAD_QUOTA_BYTES: '1000000' } })
    const db = server.service.db

    const rows = await querySql<Record<string, unknown>>(
      db,
      'SELECT id, kind, transport, state, next_index, quota, resumable, writer_state FROM upload_sessions ORDER BY transport',
    )
    expect(rows.map((row) => [row.id, row.kind, row.transport, row.state])).toEqual([
      [chunked.id, 'upload', 'chunks', 'open'],
      [streamed.id, 'upload', 'ws', 'open'],
    ])
    expect(decodeQuotaHold(String(rows[0]!.quota))).toEqual(hold)
    expect(Boolean(rows[0]!.resumable)).toBe(true)
    expect(rows[0]!.writer_state).toBeNull()
    expect(rows[1]!.writer_state).toBe('{}')

    const status = (id: string, owner: string) =>
      fetch(`${server!.url}${PATHS.uploadStatus(id)}`, { headers: { 'X-Owner-Token': owner } })
    const ws = await status(streamed.id, streamed.owner)
    expect({ status: ws.status, body: await ws.json() }).toEqual({
      status: 200,
      body: { bytesWritten: 0, nextIndex: null, declaredSize: streamed.size, transport: 'ws' },
    })
    // SQLite ran no chunk writer: its old chunk table was always empty.
    if (TEST_DIALECT === 'sqlite') return
    const chunks = await status(chunked.id, chunked.owner)
    expect({ status: chunks.status, body: await chunks.json() }).toEqual({
      status: 200,
      body: { bytesWritten: 0, nextIndex: 0, declaredSize: chunked.size, transport: 'chunks' },
    })
    const body = randomBytes(chunked.size)
    expect((await sendChunk(server, chunked.id, 0, body)).status).toBe(200)
    const done = await fetch(`${server.url}/api/upload/${chunked.id}/finalize`, {
      method: 'POST',
      headers: { 'X-Owner-Token': chunked.owner },
    })
    expect(done.status).toBe(200)
    const download = await followDownload(
      server,
      await fetch(`${server.url}/api/download/${chunked.id}`, {
        headers: { 'X-Auth-Token': chunked.auth },
      }),
    )
    expect(Buffer.from(await download.arrayBuffer()).equals(body)).toBe(true)
    // The hold its row named is recorded as used by the finalize, once.
    const quota = await querySql<{ bytes: number | string; held: number | string }>(
      db,
      'SELECT bytes, held FROM upload_quota WHERE client_hash = ?',
      [hold.clientHash],
    )
    expect(quota.map((row) => [Number(row.bytes), Number(row.held)])).toEqual([[hold.bytes, 0]])
  })
})
