/** ApiTokens on a real migrated SQLite file: the token's form and the constant-time check. */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

import { openSqlite, type SqliteDb } from '../db/sqlite.js'
import { httpErrorOfAsync } from '../../test/http-error-of.js'
import { apiTokenBytes, ApiTokens } from './api-tokens.js'
import * as tokens from './tokens.js'

vi.mock('./tokens.js', { spy: true })

const START = Date.parse('2030-01-01T00:00:00.000Z')

let dir: string
let db: SqliteDb
let service: ApiTokens

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'api-tokens-'))
  db = await openSqlite(dir)
  service = new ApiTokens({ db, now: () => START })
})

afterEach(async () => {
  await db.close()
  await rm(dir, { recursive: true, force: true })
})

const BODY = { name: 'ci', scopes: ['files'], expiresInDays: 1 }

describe('ApiTokens', () => {
  // Security: the stored hash is compared with the presented token's in constant time.
  it('confirms a token through the constant-time comparison', async () => {
    const { token } = await service.create('ada', BODY)
    vi.mocked(tokens.hashMatches).mockClear()
    await expect(service.authenticate(token)).resolves.toMatchObject({
      subject: 'ada',
      scopes: ['files'],
    })
    expect(tokens.hashMatches).toHaveBeenCalledTimes(1)
  })

  it('refuses a token the comparison rejects, even when the lookup found it', async () => {
    const { token } = await service.create('ada', BODY)
    vi.mocked(tokens.hashMatches).mockReturnValueOnce(false)
    expect(await httpErrorOfAsync(() => service.authenticate(token))).toMatchObject({
      status: 401,
      message: 'Invalid or expired API token',
    })
  })

  // Security: one spelling per token (canonical base64url, exactly 32 bytes, the prefix).
  it.each([
    ['no prefix', 'A'.repeat(43)],
    ['another prefix', `fsx_${'A'.repeat(43)}`],
    ['padding', `fst_${'A'.repeat(43)}=`],
    ['non-zero trailing bits', `fst_${'A'.repeat(42)}B`],
    ['31 bytes', `fst_${'A'.repeat(42)}`],
    ['33 bytes', `fst_${'A'.repeat(44)}`],
    ['a character outside base64url', `fst_${'A'.repeat(42)}+`],
  ])('reads no token from %s', (_what, text) => {
    expect(apiTokenBytes(text)).toBeNull()
  })

  it('reads the 32 bytes of a well-formed token', () => {
    expect(apiTokenBytes(`fst_${'A'.repeat(42)}E`)?.length).toBe(32)
  })
})
