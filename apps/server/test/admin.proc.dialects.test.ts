/**
 * fileshare-admin against a server in its own process, running and then stopped, on the test
 * dialect's database: the numbers of `stats` after a known workload, `ls` without a secret, `rm`
 * (410 with the takedown reason, blob gone, seen by the running server at once), `purge-expired`,
 * and the abuse reports filed through the server's route.
 */
import { createHash, randomBytes } from 'node:crypto'
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

import type { SpawnedServer } from '@fileshare/testing'
import { describe, expect, it } from 'vitest'

import { runAdmin } from '../src/admin/program.js'
import { openDatabase } from '../src/db/open-database.js'
import { ApiTokens, EXPIRED_TOKEN_GRACE_MS } from '../src/access/api-tokens.js'
import { newDatabaseEnv, querySql } from './dialects.js'
import { noteBody, uploadHeaders } from './harness.js'
import { call, createRequest, send } from './requests.suite.js'
import { spawnedServers } from './spawned-servers.js'
import type { TestServer } from './harness.js'

const SERVER_DIR = fileURLToPath(new URL('..', import.meta.url))
const spawned = spawnedServers('fileshare-admin-')
const run = promisify(execFile)

interface AdminRun {
  code: number
  stdout: string
  stderr: string
}

async function admin(env: Record<string, string>, ...args: string[]): Promise<AdminRun> {
  let stdout = ''
  let stderr = ''
  const code = await runAdmin(args, {
    env,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  })
  return { code, stdout, stderr }
}

/** `--json` output, parsed: the command must print exactly one JSON document. */
async function adminJson<T = Record<string, unknown>>(
  env: Record<string, string>,
  ...args: string[]
): Promise<T> {
  const result = await admin(env, '--json', ...args)
  expect(result.code, result.stderr).toBe(0)
  return JSON.parse(result.stdout) as T
}

/** The database of the server `env` configures, as the server opens it. */
function openServerDatabase(env: Record<string, string>) {
  return openDatabase({
    dataDir: env.DATA_DIR!,
    databaseUrl: env.DATABASE_URL ?? null,
    databasePoolSize: 1,
  })
}

async function serverEnv(): Promise<Record<string, string>> {
  const env: Record<string, string> = {
    HOST: '127.0.0.1',
    BASE_URL: 'http://files.test',
    DATA_DIR: await spawned.dataDir(),
    LOG_LEVEL: 'error',
    RATE_LIMIT_MAX: '0',
    CLEANUP_INTERVAL: '86400',
    ...(await newDatabaseEnv()),
  }
  return env
}

function start(env: Record<string, string>): Promise<SpawnedServer> {
  return spawned.start(env)
}

interface Workload {
  uploads: { id: string; auth: string; owner: string; salt: string; size: number }[]
  note: { id: string; secrets: string[]; size: number }
  request: Awaited<ReturnType<typeof createRequest>>
  requestUpload: string
  /** Every token and salt the workload sent: none may appear in `ls`. */
  secrets: string[]
}

/** Two uploads (1,000 and 3,000 bytes), a note of 300 bytes, a request holding 2,000 bytes. */
async function workload(server: SpawnedServer): Promise<Workload> {
  const uploads = []
  for (const size of [1000, 3000]) {
    const headers = uploadHeaders(size, {}, 'Content-Length')
    const res = await fetch(`${server.url}/api/upload`, {
      method: 'POST',
      headers,
      body: randomBytes(size),
    })
    expect(res.status).toBe(200)
    const { id } = (await res.json()) as { id: string }
    uploads.push({
      id,
      auth: headers['X-Auth-Token']!,
      owner: headers['X-Owner-Token']!,
      salt: headers['X-Salt']!,
      size,
    })
  }
  const body = noteBody()
  const created = await call(server, 'POST', '/note', { body })
  expect(created.status).toBe(201)
  const note = {
    id: created.body.id as string,
    secrets: ['encryptedContent', 'nonce', 'salt', 'ownerToken', 'authToken'].map(
      (field) => body[field] as string,
    ),
    size: 300,
  }
  const request = await createRequest(server, { downloads: 1 })
  const sent = await send(server as unknown as TestServer, request, 2000)
  const secrets = [
    ...uploads.flatMap((u) => [u.auth, u.owner, u.salt]),
    ...note.secrets,
    request.uploadToken,
    request.inboxToken,
    request.ownerToken,
    request.fields.vault as string,
    ...Object.values(sent.finalized as Record<string, string>),
  ]
  // What the database keeps of the tokens: their SHA-256, in hex or base64.
  for (const token of secrets.slice()) {
    const hash = createHash('sha256').update(Buffer.from(token, 'base64url')).digest()
    secrets.push(hash.toString('hex'), hash.toString('base64'), hash.toString('base64url'))
  }
  return { uploads, note, request, requestUpload: sent.id, secrets }
}

interface StatsJson {
  uploads: { count: number; bytes: number; oldest: string | null }
  notes: { count: number; bytes: number }
  requests: { count: number; uploads: number; bytes: number }
  tombstones: { count: number; takedowns: number }
  reports: { open: number }
  storage: { blobs: number; bytes: number }
}

describe('fileshare-admin', { timeout: 30_000 }, () => {
  it('reports, lists and takes down what a running server holds, which sees it at once', async () => {
    const env = await serverEnv()
    const server = await start(env)
    const work = await workload(server)

    const stats = await adminJson<StatsJson>(env, 'stats')
    expect(stats.uploads).toMatchObject({ count: 2, bytes: 4000 })
    expect(stats.uploads.oldest).toMatch(/^\d{4}-\d\d-\d\dT/)
    expect(stats.notes).toMatchObject({ count: 1, bytes: 300 })
    expect(stats.requests).toMatchObject({ count: 1, uploads: 1, bytes: 2000 })
    expect(stats.storage).toMatchObject({ blobs: 3, bytes: 6000 })
    expect(stats.tombstones).toEqual({ count: 0, takedowns: 0 })

    // Security: ls shows sizes, times and counters, never a token, its hash, a salt or ciphertext.
    const listed = await admin(env, '--json', 'ls')
    const text = await admin(env, 'ls')
    for (const output of [listed.stdout, text.stdout]) {
      for (const secret of work.secrets) expect(output).not.toContain(secret)
    }
    const { items } = JSON.parse(listed.stdout) as { items: Record<string, unknown>[] }
    expect(items.map((item) => item.kind).sort()).toEqual(['note', 'request', 'upload', 'upload'])
    expect(items.find((item) => item.id === work.uploads[1]!.id)).toMatchObject({
      size: 3000,
      downloadCount: 0,
      maxDownloads: 1,
    })
    expect(items.find((item) => item.kind === 'request')).toMatchObject({ size: 2000, uploads: 1 })
    const notes = await adminJson<{ items: unknown[] }>(env, 'ls', '--kind', 'note')
    expect(notes.items).toHaveLength(1)

    // rm with a reason: the running server answers 410 with it, and the blob is gone.
    const [first] = work.uploads
    const removed = await adminJson<{ removed: Record<string, unknown> }>(
      env,
      'rm',
      first!.id,
      '--reason',
      'Copyright complaint',
    )
    expect(removed.removed).toMatchObject({ kind: 'upload', id: first!.id, blobs: 1 })
    expect(existsSync(join(env.DATA_DIR!, 'blobs', first!.id))).toBe(false)
    const download = await fetch(`${server.url}/api/download/${first!.id}`, {
      headers: { 'X-Auth-Token': first!.auth },
    })
    expect(download.status).toBe(410)
    expect(await download.json()).toEqual({
      error: 'Removed by the operator',
      reason: 'removed',
      takedown: 'Copyright complaint',
    })
    expect((await call(server, 'GET', `/info/${first!.id}`)).status).toBe(410)
    expect((await call(server, 'GET', `/exists/${first!.id}`)).body).toEqual({ exists: false })

    // A note and a request go the same way; the request with the upload in it.
    expect((await admin(env, 'rm', work.note.id)).code).toBe(0)
    const noteInfo = await call(server, 'GET', `/note/${work.note.id}`)
    expect(noteInfo).toMatchObject({
      status: 410,
      body: { error: 'Removed by the operator', reason: 'removed' },
    })
    expect(noteInfo.body.takedown).toBeUndefined()
    expect((await admin(env, 'rm', work.request.id)).code).toBe(0)
    expect(existsSync(join(env.DATA_DIR!, 'blobs', work.requestUpload))).toBe(false)
    const request = await call(server, 'GET', `/request/${work.request.id}`, {
      headers: { 'X-Upload-Token': work.request.uploadToken },
    })
    expect(request).toMatchObject({ status: 410, body: { reason: 'removed' } })

    const after = await adminJson<StatsJson>(env, 'stats')
    expect(after.uploads).toMatchObject({ count: 1, bytes: 3000 })
    expect(after.notes.count).toBe(0)
    expect(after.requests).toMatchObject({ count: 0, uploads: 0 })
    expect(after.tombstones).toEqual({ count: 3, takedowns: 3 })
    expect(after.storage).toMatchObject({ blobs: 1, bytes: 3000 })
    const gone = await adminJson<{ items: Record<string, unknown>[] }>(
      env,
      'ls',
      '--kind',
      'removed',
    )
    expect(gone.items.find((item) => item.id === first!.id)).toMatchObject({
      was: 'upload',
      reason: 'Copyright complaint',
    })

    // An unknown id is a refusal with its own exit code, and changes nothing.
    const unknown = await admin(env, 'rm', '00000000-0000-4000-8000-000000000000')
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('no upload, note or request')
  })

  it('files abuse reports through the server and handles them', async () => {
    const env = await serverEnv()
    const server = await start(env)
    const work = await workload(server)
    const key = randomBytes(34).toString('base64url')
    const target = work.uploads[0]!.id
    const filed = await call(server, 'POST', `/report/${target}`, {
      body: { reason: 'Malware\nsecond\u009b2J\u202eline\u001b[2J', key },
    })
    expect(filed).toMatchObject({ status: 201, body: { ok: true } })
    expect(
      (await call(server, 'POST', `/report/${work.note.id}`, { body: { reason: 'Spam' } })).status,
    ).toBe(201)

    const listed = await adminJson<{ reports: Record<string, unknown>[] }>(env, 'reports')
    expect(listed.reports).toHaveLength(2)
    expect(listed.reports[1]).toMatchObject({
      targetId: target,
      reason: 'Malware\nsecond\u009b2J\u202eline\u001b[2J',
      status: 'open',
      hasKey: true,
    })
    // Security: a reporter's text reaches the operator's terminal with its control characters escaped.
    const table = await admin(env, 'reports')
    const escaped = 'Malware\\x0asecond\\x9b2J\\u202eline\\x1b[2J'
    expect(table.stdout).toContain(escaped)
    for (const c of ['\u001b', '\u009b', '\u202e']) expect(table.stdout).not.toContain(c)
    // The list never prints the key; `show` gives the link that opens the content.
    expect(JSON.stringify(listed)).not.toContain(key)
    const n = String(listed.reports[1]!.id)
    const shown = await adminJson<{ report: { link: string; target: unknown } }>(
      env,
      'reports',
      'show',
      n,
    )
    expect(shown.report.link).toBe(`http://files.test/d/${target}#${key}`)
    expect(shown.report.target).toEqual({ kind: 'upload', removed: false, state: 'stored' })
    const shownText = await admin(env, 'reports', 'show', n)
    expect(shownText.stdout).toContain(`reason  ${escaped}`)
    for (const c of ['\u001b', '\u009b', '\u202e']) expect(shownText.stdout).not.toContain(c)
    const noKey = await admin(env, 'reports', 'show', String(listed.reports[0]!.id))
    expect(noKey.stdout).toContain('no key given')

    expect((await admin(env, 'reports', 'resolve', n)).code).toBe(0)
    expect((await admin(env, 'reports', 'resolve', n)).code).toBe(2)
    expect((await admin(env, 'reports', 'dismiss', String(listed.reports[0]!.id))).code).toBe(0)
    const open = await adminJson<{ reports: unknown[] }>(env, 'reports', 'list')
    expect(open.reports).toEqual([])
    const all = await adminJson<{ reports: { status: string }[] }>(
      env,
      'reports',
      '--status',
      'all',
    )
    expect(all.reports.map((r) => r.status)).toEqual(['dismissed', 'resolved'])
    const stats = await adminJson<StatsJson>(env, 'stats')
    expect(stats.reports.open).toBe(0)
  })

  it('works on a stopped server: purge-expired removes what expired, and the restart sees it', async () => {
    const env = await serverEnv()
    const server = await start(env)
    const work = await workload(server)
    await server.stop()

    // One upload and the note expire while the server is down.
    const db = await openServerDatabase(env)
    const past = Date.now() - 60_000
    await querySql(db, 'UPDATE uploads SET expires_at = ? WHERE id = ?', [
      past,
      work.uploads[0]!.id,
    ])
    await querySql(db, 'UPDATE notes SET expires_at = ? WHERE id = ?', [past, work.note.id])
    await db.close()

    const purged = await adminJson<Record<string, unknown>>(env, 'purge-expired')
    expect(purged).toMatchObject({ uploadsRemoved: 1, notesRemoved: 1, failedSteps: [] })
    expect(existsSync(join(env.DATA_DIR!, 'blobs', work.uploads[0]!.id))).toBe(false)
    const stats = await adminJson<StatsJson>(env, 'stats')
    expect(stats.uploads).toMatchObject({ count: 1, bytes: 3000 })
    expect(stats.tombstones).toEqual({ count: 2, takedowns: 0 })
    const again = await adminJson<Record<string, unknown>>(env, 'purge-expired')
    expect(again).toMatchObject({ uploadsRemoved: 0, notesRemoved: 0 })

    // Taken down while stopped; the restarted server answers both kinds of 410.
    expect((await admin(env, 'rm', work.uploads[1]!.id, '--reason', 'Phishing')).code).toBe(0)
    const restarted = await start(env)
    const expired = await call(restarted, 'GET', `/info/${work.uploads[0]!.id}`)
    expect(expired).toMatchObject({
      status: 410,
      body: { error: 'Upload expired or download limit reached' },
    })
    expect(expired.body.reason).toBeUndefined()
    const takenDown = await call(restarted, 'GET', `/info/${work.uploads[1]!.id}`)
    expect(takenDown).toMatchObject({
      status: 410,
      body: { reason: 'removed', takedown: 'Phishing' },
    })
  })

  it('lists and revokes API tokens through the program, never showing a token', async () => {
    const env = await serverEnv()
    await (await start(env)).stop()
    const db = await openServerDatabase(env)
    const created = await new ApiTokens({ db, now: () => Date.now() }).create('ada', {
      name: 'nightly backup',
      scopes: ['files'],
      expiresInDays: 30,
    })
    await db.close()

    const listed = await admin(env, 'tokens', '--json')
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).not.toContain(created.token)
    expect(JSON.parse(listed.stdout)).toMatchObject({
      tokens: [{ id: created.id, subject: 'ada', name: 'nightly backup', scopes: ['files'] }],
    })
    const text = await admin(env, 'tokens')
    expect(text.stdout).toContain('nightly backup')
    expect(text.stdout).not.toContain(created.token)

    expect((await admin(env, 'tokens', 'revoke', created.id)).code).toBe(0)
    expect(await adminJson(env, 'tokens')).toEqual({ tokens: [] })
    expect((await admin(env, 'tokens', 'revoke', created.id)).code).toBe(2)
  })

  it('purge-expired deletes API tokens expired longer than the grace, as the cleanup job does', async () => {
    const env = await serverEnv()
    await (await start(env)).stop()
    const db = await openServerDatabase(env)
    const DAY = 86_400_000
    // Created 30 days before `daysAgo`, so each expired 30 days after its creation.
    const expiredDaysAgo = (days: number) =>
      new ApiTokens({ db, now: () => Date.now() - (days + 30) * DAY }).create('ada', {
        name: `expired ${days} days ago`,
        scopes: ['files'],
        expiresInDays: 30,
      })
    const longAgo = await expiredDaysAgo(EXPIRED_TOKEN_GRACE_MS / DAY + 1)
    const recent = await expiredDaysAgo(1)
    const ids = async () =>
      (await querySql<{ id: string }>(db, 'SELECT id FROM api_tokens')).map((row) => row.id)
    expect((await ids()).sort()).toEqual([longAgo.id, recent.id].sort())

    const text = await admin(env, 'purge-expired')
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/^API tokens +1$/m)
    expect(await ids()).toEqual([recent.id])

    await expiredDaysAgo(EXPIRED_TOKEN_GRACE_MS / DAY + 5)
    const purged = await adminJson(env, 'purge-expired')
    expect(purged).toMatchObject({ apiTokensPurged: 1, failedSteps: [] })
    expect(await ids()).toEqual([recent.id])
    await db.close()
  })

  it('runs as its own program and refuses bad usage with one line', async () => {
    const env = await serverEnv()
    await (await start(env)).stop()
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'src/admin.ts', '--json', 'stats'],
      { cwd: SERVER_DIR, env: { ...process.env, ...env } },
    )
    expect(JSON.parse(stdout)).toMatchObject({ uploads: { count: 0 }, storage: { blobs: 0 } })
    // A DATA_DIR that holds no server's database is refused rather than given a new one.
    if (env.DATABASE_URL === undefined) {
      const empty = await spawned.dataDir()
      const missing = await admin({ ...env, DATA_DIR: empty }, 'stats')
      expect(missing.code).toBe(1)
      expect(missing.stderr).toMatch(/^fileshare-admin: no database at .*fileshare\.db/)
      expect(existsSync(join(empty, 'fileshare.db'))).toBe(false)
    }
    const bad = await admin(env, 'ls', '--kind', 'secret')
    expect(bad.code).toBe(1)
    expect(bad.stderr).toBe(
      'fileshare-admin: --kind must be one of upload, note, request, removed\n',
    )
    const report = await admin(env, 'reports', 'show', 'x')
    expect(report.code).toBe(1)
  })
})
