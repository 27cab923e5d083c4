/**
 * What a personal API token costs a guarded request, against the session JWT it stands in for:
 * the built server answers GET /api/request/limit (OIDC_PROTECT_REQUESTS) under wrk
 * (bench/limits.lua) with a session JWT as Bearer (an HS256 check, no database) and with an API
 * token (a SHA-256, one SELECT by hash, last use written at most once a minute), on SQLite and on
 * PostgreSQL. Run with `pnpm --filter @fileshare/server exec tsx bench/token-bench.ts` after a
 * build. Prints a table; the last line is one JSON object of every figure.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { stopChild } from '@fileshare/testing'
import { startPostgres } from '@fileshare/testing/postgres'
import { SignJWT } from 'jose'

import { startBuiltServer, wrkLoad, type WrkLoad } from './lib.js'
import { wrkMissing } from './require-wrk.js'

const SECONDS = Number(process.env.BENCH_TOKENS_SECONDS ?? 8)
const CONNECTIONS = 32
const SECRET = 'a session secret for the token benchmark, long enough'

function load(port: number, authorization: string, seconds = SECONDS): Promise<WrkLoad> {
  return wrkLoad(port, seconds, CONNECTIONS, {
    LIMITS_CLIENTS: '1',
    BENCH_PATH: '/api/request/limit',
    BENCH_AUTHORIZATION: authorization,
  })
}

/** Both credentials against one server on `env`'s database. */
async function guardLoad(env: Record<string, string>) {
  const dataDir = await mkdtemp(join(tmpdir(), 'fileshare-bench-tokens-'))
  const server = await startBuiltServer(dataDir, {
    ...env,
    // Discovery is lazy and never needed here: the session JWT is signed below.
    OIDC_ISSUER: 'http://127.0.0.1:9',
    OIDC_CLIENT_ID: 'bench',
    OIDC_CLIENT_SECRET: 'bench',
    OIDC_SESSION_SECRET: SECRET,
    OIDC_PROTECT_REQUESTS: 'true',
  })
  try {
    const session = await new SignJWT({ name: 'Bench', email: '' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject('bench')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(SECRET))
    const made = await fetch(`http://127.0.0.1:${server.port}/api/tokens`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${session}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'bench', scopes: ['requests'], expiresInDays: 1 }),
    })
    if (made.status !== 201) throw new Error(`token creation answered ${made.status}`)
    const { token } = (await made.json()) as { token: string }
    const figures: Record<'session' | 'apiToken', WrkLoad> = {} as never
    for (const [what, credential] of [
      ['session', session],
      ['apiToken', token],
    ] as const) {
      await load(server.port, `Bearer ${credential}`, 2)
      figures[what] = await load(server.port, `Bearer ${credential}`)
    }
    return figures
  } finally {
    await stopChild(server.child)
    await rm(dataDir, { recursive: true, force: true })
  }
}

const wrkProblem = await wrkMissing()
if (wrkProblem !== null) {
  console.error(wrkProblem)
  process.exit(1)
}

const postgres = await startPostgres()
try {
  const results = {
    sqlite: await guardLoad({}),
    postgres: await guardLoad({ DATABASE_URL: await postgres.createDatabase() }),
  }
  console.log(
    'GET /api/request/limit with a session JWT and with an API token (requests/s, p50, p99 ms)',
  )
  for (const [dialect, runs] of Object.entries(results)) {
    for (const [what, r] of Object.entries(runs)) {
      console.log(
        `  ${dialect.padEnd(9)} ${what.padEnd(9)} ${r.requestsPerSec}/s  ${r.p50Ms} ms  ${r.p99Ms} ms` +
          (r.non2xx > 0 ? `  (${r.non2xx} non-2xx)` : ''),
      )
    }
  }
  console.log(JSON.stringify(results))
} finally {
  await postgres.stop()
}
