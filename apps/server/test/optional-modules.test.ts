/**
 * A server without login, on the filesystem and on SQLite does not load the login's libraries
 * (jose, arctic), the S3 client or the PostgreSQL driver, which cost memory and start-up time;
 * with login configured, the login's are loaded. The libraries are wrapped to record each first load; module loads are
 * cached, so the cases run in this order in one file.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'

import { startTestServer, type TestServer } from './harness.js'

const loaded = vi.hoisted(() => new Set<string>())

vi.mock('jose', async (original) => {
  loaded.add('jose')
  return original()
})
vi.mock('arctic', async (original) => {
  loaded.add('arctic')
  return original()
})
vi.mock('pg', async (original) => {
  loaded.add('pg')
  return original()
})
vi.mock('@aws-sdk/client-s3', async (original) => {
  loaded.add('@aws-sdk/client-s3')
  return original()
})

const LOGIN = {
  // Discovery runs on the first login, not at start, so no provider needs to answer here.
  OIDC_ISSUER: 'http://127.0.0.1:9/issuer',
  OIDC_CLIENT_ID: 'fileshare',
  OIDC_CLIENT_SECRET: 'client-secret',
  OIDC_SESSION_SECRET: 'a-session-secret-of-at-least-32-characters!',
}

describe.sequential('optional modules', () => {
  let server: TestServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  it('a server on the filesystem and SQLite without login loads no login, S3 or PostgreSQL', async () => {
    server = await startTestServer()
    const health = await fetch(`${server.url}/api/health`)
    expect(health.status).toBe(200)
    expect([...loaded]).toEqual([])
  })

  it('a server with login loads the login libraries and serves /auth', async () => {
    server = await startTestServer({ env: LOGIN })
    expect([...loaded].sort()).toEqual(['arctic', 'jose'])
    const session = await fetch(`${server.url}/auth/session`)
    expect(session.status).toBe(401)
  })

  it('the S3 store module loads the S3 client', async () => {
    await import('../src/storage/s3.js')
    expect(loaded.has('@aws-sdk/client-s3')).toBe(true)
  })

  it('the PostgreSQL module loads its driver', async () => {
    await import('../src/db/postgres.js')
    expect(loaded.has('pg')).toBe(true)
  })
})
