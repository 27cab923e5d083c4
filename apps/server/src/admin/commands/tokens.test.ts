/** `fileshare-admin tokens` over ApiTokens on a real migrated SQLite file. */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { openSqlite, type SqliteDb } from '../../db/sqlite.js'
import { ApiTokens } from '../../access/api-tokens.js'
import { tokensCommand } from './tokens.js'

const START = Date.parse('2030-01-01T00:00:00.000Z')

let dir: string
let db: SqliteDb
let apiTokens: ApiTokens
let now: number

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tokens-command-'))
  db = await openSqlite(dir)
  now = START
  apiTokens = new ApiTokens({ db, now: () => now })
})

afterEach(async () => {
  await db.close()
  await rm(dir, { recursive: true, force: true })
})

describe('fileshare-admin tokens', () => {
  it('lists every token with its owner, and never the token', async () => {
    const ada = await apiTokens.create('ada', { name: 'ci', scopes: ['files'], expiresInDays: 7 })
    now += 1000
    await apiTokens.create('bob', { name: 'notes bot', scopes: ['notes'], expiresInDays: 1 })
    const { json, text } = await tokensCommand({ apiTokens }, { action: 'list' })
    const { tokens } = json as { tokens: Array<Record<string, unknown>> }
    expect(tokens.map((t) => [t.subject, t.name, t.scopes])).toEqual([
      ['bob', 'notes bot', ['notes']],
      ['ada', 'ci', ['files']],
    ])
    expect(tokens[1]).toEqual({
      id: ada.id,
      subject: 'ada',
      name: 'ci',
      scopes: ['files'],
      createdAt: '2030-01-01T00:00:00.000Z',
      expiresAt: '2030-01-08T00:00:00.000Z',
      lastUsedAt: null,
    })
    const lines = text.split('\n')
    expect(lines[0]).toMatch(/^ID +OWNER +NAME +SCOPES +CREATED +LAST USED +EXPIRES$/)
    expect(lines[2]).toContain(`${ada.id}  ada  `)
    // Security: the listing shows no token, in JSON or as text.
    expect(JSON.stringify(json) + text).not.toContain(ada.token.slice(4))
  })

  it('revokes a token by id, and says so when there is none', async () => {
    const { id, token } = await apiTokens.create('ada', {
      name: 'ci',
      scopes: ['files'],
      expiresInDays: 7,
    })
    expect(await tokensCommand({ apiTokens }, { action: 'revoke', id })).toEqual({
      json: { revoked: { id } },
      text: `revoked API token ${id}`,
    })
    await expect(apiTokens.authenticate(token)).rejects.toMatchObject({ status: 401 })
    const again = await tokensCommand({ apiTokens }, { action: 'revoke', id })
    expect(again.exitCode).toBe(2)
    expect((await tokensCommand({ apiTokens }, { action: 'revoke', id: 'nope' })).exitCode).toBe(2)
    expect((await tokensCommand({ apiTokens }, { action: 'list' })).text).toBe('(no API tokens)')
  })
})
