/**
 * What the server does to let others verify the web app it hosts: it serves the build's
 * integrity manifest, sends the policy that manifest records (the import map's hash included),
 * serves an operator's WEBCAT files, and refuses to start with a malformed enrollment policy.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { contentSecurityPolicy, type WebIntegrityManifest } from '@fileshare/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startTestServer, type TestServer } from './harness.js'

const IMPORT_MAP_HASH = 'sha256-LMv+fG27kaGn4ljm3RVkHQfFDbxfcRVq705fbQP7U8U='
const HASH = 'a'.repeat(64)

const MANIFEST: WebIntegrityManifest = {
  manifest: {
    app_url: '',
    app_version: '1.2.3',
    default_csp: contentSecurityPolicy({ scriptHashes: [IMPORT_MAP_HASH] }),
    files: { '/': HASH, '/index.html': HASH },
    wasm: [],
  },
  signatures: {},
}

const ENROLLMENT = {
  type: 'sigsum',
  signers: ['MCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE'],
  threshold: 1,
  policy: 'cG9saWN5',
  max_age: 15_552_000,
  cas_url: 'https://cas.example.org',
  logs: { bG9n: 'https://log.example.org' },
}

/** A signed manifest as a WEBCAT client fetches it; its signatures are opaque to the server. */
const SIGNED = { ...MANIFEST, signatures: { a2V5: { proof: 'cHJvb2Y' } } }

describe('a hosted web app with its integrity manifest', () => {
  let dir: string
  let server: TestServer

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fileshare-web-integrity-'))
    const webRoot = join(dir, 'web')
    await mkdir(join(dir, 'webcat'))
    await writeFile(join(dir, 'webcat', 'enrollment.json'), JSON.stringify(ENROLLMENT))
    await writeFile(join(dir, 'webcat', 'manifest.json'), JSON.stringify(SIGNED))
    await writeFile(join(dir, 'webcat', 'notes.txt'), 'not served')
    await mkdir(webRoot)
    await writeFile(join(webRoot, 'index.html'), '<!doctype html><title>fileshare</title>')
    await writeFile(join(webRoot, 'integrity.json'), JSON.stringify(MANIFEST))
    server = await startTestServer({
      webRoot,
      env: { WEBCAT_DIR: join(dir, 'webcat') },
    })
  })

  afterAll(async () => {
    await server.close()
    await rm(dir, { recursive: true, force: true })
  })

  it("sends the manifest's policy with the page, the API and the manifest itself", async () => {
    for (const path of ['/', '/d/x', '/api/config', '/integrity.json']) {
      const res = await fetch(`${server.url}${path}`)
      await res.arrayBuffer()
      expect(res.headers.get('content-security-policy'), path).toBe(MANIFEST.manifest.default_csp)
    }
    const served = await fetch(`${server.url}/integrity.json`)
    expect(await served.json()).toEqual(MANIFEST)
  })

  it('serves the WEBCAT enrollment policy and signed manifest at their well-known paths', async () => {
    const res = await fetch(`${server.url}/.well-known/webcat/enrollment.json`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await res.json()).toEqual(ENROLLMENT)
    const manifest = await fetch(`${server.url}/.well-known/webcat/manifest.json`)
    expect(await manifest.json()).toEqual(SIGNED)
    // Nothing else of the folder, and no path outside it.
    for (const path of ['notes.txt', 'bundle.json', 'other', '..%2Fwebcat%2Fenrollment.json']) {
      const other = await fetch(`${server.url}/.well-known/webcat/${path}`)
      expect(other.status, path).toBe(404)
      await other.arrayBuffer()
    }
  })
})

describe('a server without an enrollment policy', () => {
  it('answers 404 at the well-known path, and sends the policy without a script hash', async () => {
    const server = await startTestServer()
    try {
      const res = await fetch(`${server.url}/.well-known/webcat/enrollment.json`)
      expect(res.status).toBe(404)
      expect(res.headers.get('content-security-policy')).toBe(contentSecurityPolicy())
    } finally {
      await server.close()
    }
  })
})

describe('WEBCAT_DIR', () => {
  it.each([
    ['no enrollment policy', undefined, /is missing: the enrollment policy is required/],
    ['no signers', { ...ENROLLMENT, signers: [] }, /"signers"/],
    ['a threshold above the signers', { ...ENROLLMENT, threshold: 2 }, /"threshold" exceeds/],
    ['a plain-http store', { ...ENROLLMENT, cas_url: 'http://cas.example.org' }, /"cas_url"/],
    ['an unknown kind', { ...ENROLLMENT, type: 'other' }, /"type"/],
    [
      'a Sigstore policy without its issuer',
      { type: 'sigstore', max_age: 1, identity: 'x', trusted_root: {} },
      /"issuer"/,
    ],
  ])('stops the start with %s, naming the setting', async (_, content, reason) => {
    const dir = await mkdtemp(join(tmpdir(), 'fileshare-enrollment-'))
    const file = join(dir, 'enrollment.json')
    if (content !== undefined) await writeFile(file, JSON.stringify(content))
    try {
      const error = await startTestServer({ env: { WEBCAT_DIR: dir } }).then(
        async (server) => {
          await server.close()
          return undefined
        },
        (e: unknown) => e as Error,
      )
      expect(error?.message).toMatch(/^WEBCAT_DIR: .*enrollment\.json /)
      expect(error?.message).toMatch(reason)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
