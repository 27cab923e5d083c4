/**
 * `fileshare login`, `whoami` and `logout` against the real server with a real OIDC provider
 * (oidc-provider on loopback); the test plays the browser the command would open.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { Browser, freePort, location } from '@fileshare/testing'
import { createTestProvider, type TestProvider } from '@fileshare/testing/oidc-provider'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { CliUser, type CliResult } from './cli-runner.js'
import { startTestServer, type TestServer } from './server.js'

let provider: TestProvider
let server: TestServer
let user: CliUser
let work: string

/** Starts the provider and the server on a port chosen beforehand, as the redirect URI needs. */
async function startBoth(port: number): Promise<void> {
  const baseUrl = `http://127.0.0.1:${port}`
  provider = await createTestProvider({ redirectUri: `${baseUrl}/auth/callback` })
  await provider.start()
  try {
    server = await startTestServer({
      PORT: String(port),
      BASE_URL: baseUrl,
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_SESSION_SECRET: 'a session secret of at least 32 characters',
      OIDC_PROTECT_FILES: 'true',
      OIDC_PROTECT_NOTES: 'true',
      OIDC_PROTECT_REQUESTS: 'true',
    })
  } catch (error) {
    await provider.stop()
    throw error
  }
}

beforeAll(async () => {
  // The port is free when chosen, but another listener (the provider's own, or another suite's)
  // may take it before the server listens: then the setup is tried again on another one.
  for (let attempt = 1; ; attempt++) {
    try {
      await startBoth(await freePort())
      break
    } catch (error) {
      if (attempt >= 3 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
    }
  }
  user = await CliUser.create(server.url)
  work = await mkdtemp(join(tmpdir(), 'fileshare-cli-login-'))
})

afterAll(async () => {
  await server?.close()
  await provider?.stop()
  if (work) await rm(work, { recursive: true, force: true })
  if (user) await rm(user.home, { recursive: true, force: true })
})

/** Runs `fileshare login`, and when it prints the login address, signs in as a browser would. */
async function login(): Promise<{ result: CliResult; landing: Response }> {
  let browsed: Promise<Response> | undefined
  const result = await user.run(['login'], {
    env: { FILESHARE_NO_BROWSER: '1' },
    onStderr: (text) => {
      const url = /(http:\/\/\S+\/auth\/login\?cli_callback=\S+)/.exec(text)?.[1]
      if (url === undefined || browsed) return
      browsed = (async () => {
        const browser = new Browser()
        const callback = await browser.follow(url, `${server.url}/auth/callback`)
        const toCli = await browser.fetch(callback)
        expect(toCli.status).toBe(302)
        const cliUrl = toCli.headers.get('location')!
        expect(cliUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/.*[?&]token=/)
        return browser.fetch(cliUrl)
      })()
    },
  })
  if (!browsed) throw new Error(`no login address printed: ${result.stderr}`)
  return { result, landing: await browsed }
}

describe('login', () => {
  it('says to run fileshare login when creating needs one', async () => {
    const file = join(work, 'a.txt')
    await writeFile(file, 'hello')
    const send = await user.run(['send', file])
    expect(send.code).toBe(2)
    expect(send.stderr).toContain('fileshare: Login required: run `fileshare login`')
    const note = await user.run(['note', 'hi'])
    expect(note.code).toBe(2)
    expect(note.stderr).toContain('run `fileshare login`')
    expect((await user.ok(['whoami'])).stdout).toContain('Not signed in')
  })

  it('signs in through the browser, keeps the token 0600 and creates with it', async () => {
    const { result, landing } = await login()
    expect(landing.status).toBe(200)
    expect(await landing.text()).toContain('Signed in')
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(`Signed in to ${server.url} as Ada Lovelace <ada@example.org>.\n`)

    // Security: the session token is readable by its owner only.
    const credentials = join(user.configDir, 'credentials.json')
    expect((await stat(credentials)).mode & 0o777).toBe(0o600)
    expect(await readFile(credentials, 'utf8')).toMatch(/"token": "ey/)

    const who = await user.json<{ signedIn: boolean; name: string; email: string }>(['whoami'])
    expect(who).toMatchObject({ signedIn: true, name: 'Ada Lovelace', email: 'ada@example.org' })

    const file = join(work, 'b.txt')
    await writeFile(file, 'with a login')
    const sent = await user.json<{ link: string }>(['send', file])
    const out = join(work, 'b-out')
    await user.ok(['get', sent.link, '-o', out])
    expect(await readFile(join(out, 'b.txt'), 'utf8')).toBe('with a login')
    await user.ok(['note', 'signed-in note'])
    await user.ok(['request', '--message', 'send me things'])
  })

  it('forgets the token on logout', async () => {
    expect((await user.ok(['logout'])).stdout).toBe(`Signed out of ${server.url}.\n`)
    expect(await user.json(['whoami'])).toEqual({ server: server.url, signedIn: false })
    const note = await user.run(['note', 'hi'])
    expect(note.code).toBe(2)
    expect(note.stderr).toContain('Login required')
  })

  it('refuses to log in to a server without login', async () => {
    const plain = await startTestServer()
    try {
      const result = await user.run(['login', '--server', plain.url])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('has no login')
    } finally {
      await plain.close()
    }
  })
})

describe('API tokens', () => {
  /** A token made through the token route with a browser login, as the settings page does. */
  async function makeToken(scopes: string[] = ['files', 'notes', 'requests']) {
    const browser = new Browser()
    const start = await browser.fetch(`${server.url}/auth/login`)
    const callback = await browser.follow(
      location(start, server.url),
      `${server.url}/auth/callback`,
    )
    await browser.fetch(callback)
    const res = await browser.fetch(`${server.url}/api/tokens`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'cli', scopes, expiresInDays: 1 }),
    })
    expect(res.status).toBe(201)
    const { id, token } = (await res.json()) as { id: string; token: string }
    const revoke = async () => {
      const gone = await browser.fetch(`${server.url}/api/tokens/${id}`, { method: 'DELETE' })
      expect(gone.status).toBe(200)
    }
    return { token, revoke }
  }

  it('keeps a token from login --token (0600), creates with it, and fails once it is revoked', async () => {
    const scripted = await CliUser.create(server.url)
    try {
      const { token, revoke } = await makeToken()
      const login = await scripted.ok(['login', '--token', '-'], { input: `${token}\n` })
      expect(login.stdout).toBe(`Signed in to ${server.url} with an API token of ada.\n`)
      // Security: the token is readable by its owner only.
      const credentials = join(scripted.configDir, 'credentials.json')
      expect((await stat(credentials)).mode & 0o777).toBe(0o600)
      expect(await readFile(credentials, 'utf8')).toContain(token)
      expect(await scripted.json(['whoami'])).toMatchObject({ signedIn: true, sub: 'ada' })

      const file = join(work, 'token.txt')
      await writeFile(file, 'sent with a token')
      await scripted.ok(['send', file])
      await scripted.ok(['note', 'a note with a token'])

      await revoke()
      const refused = await scripted.run(['note', 'after revoking'])
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain('Invalid or expired API token: make a new one')
      expect((await scripted.ok(['whoami'])).stdout).toContain('revoked or expired')

      expect((await scripted.ok(['logout'])).stdout).toBe(`Signed out of ${server.url}.\n`)
      expect(await readFile(credentials, 'utf8')).not.toContain(token)
    } finally {
      await rm(scripted.home, { recursive: true, force: true })
    }
  })

  it('refuses to keep a token the server does not accept, or that is no token', async () => {
    const scripted = await CliUser.create(server.url)
    try {
      const { token, revoke } = await makeToken()
      await revoke()
      const revoked = await scripted.run(['login', '--token', token])
      expect(revoked.code).toBe(2)
      expect(revoked.stderr).toContain('does not accept this token')
      const session = await scripted.run(['login', '--token', 'eyJhbGciOiJIUzI1NiJ9.e30.x'])
      expect(session.code).toBe(1)
      expect(session.stderr).toContain('not an API token')
    } finally {
      await rm(scripted.home, { recursive: true, force: true })
    }
  })

  it('takes FILESHARE_TOKEN over the kept login', async () => {
    const scripted = await CliUser.create(server.url)
    try {
      const kept = await makeToken()
      await scripted.ok(['login', '--token', kept.token])
      await kept.revoke()
      const fresh = await makeToken(['notes'])
      const env = { FILESHARE_TOKEN: fresh.token }
      await scripted.ok(['note', 'from the environment'], { env })
      // The scope holds: this token makes notes only.
      const file = join(work, 'env.txt')
      await writeFile(file, 'no files with a notes token')
      const refused = await scripted.run(['send', file], { env })
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain('API token not valid for this service')
      const logout = await scripted.ok(['logout'], { env })
      expect(logout.stderr).toContain('FILESHARE_TOKEN is set')
    } finally {
      await rm(scripted.home, { recursive: true, force: true })
    }
  })
})
