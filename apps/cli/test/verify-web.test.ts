/**
 * `fileshare verify-web` against the real server hosting a copy of the built web app (and, for
 * policies the server never sends, a plain static server): a served app equal to its manifest
 * passes; an altered file, a page that loads something unlisted, or another policy fails with
 * exit code 1 and names each difference.
 */
import { createHash } from 'node:crypto'
import {
  appendFile,
  cp,
  mkdtemp,
  readdir,
  readFile,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { parseIntegrityManifest, type WebIntegrityManifest } from '@fileshare/protocol'
import { loadConfig } from '@fileshare/server/dist/config.js'
import { createLogger } from '@fileshare/server/dist/logger.js'
import { startServer, type RunningService } from '@fileshare/server/dist/server.js'
import { startInProcessServer, type InProcessServer } from '@fileshare/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { CLI, newHome, runCli } from './cli-runner.js'

const WEB_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url))

let temp: string
let manifest: WebIntegrityManifest
const servers: InProcessServer<RunningService>[] = []
const plain: Server[] = []

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'fileshare-verify-web-'))
  const text = await readFile(join(WEB_DIST, 'integrity.json'), 'utf8').catch(() => {
    throw new Error(`no built web app at ${WEB_DIST}: run pnpm build first`)
  })
  manifest = parseIntegrityManifest(JSON.parse(text))
})

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()))
  await Promise.all(plain.map((server) => new Promise((done) => server.close(done))))
  await rm(temp, { recursive: true, force: true })
})

/** A copy of the built app, altered by `change`, hosted by the real server of that version. */
async function host(name: string, change?: (root: string) => Promise<void>): Promise<string> {
  const root = join(temp, name)
  await cp(WEB_DIST, root, { recursive: true })
  await change?.(root)
  const server = await startInProcessServer(
    (env) =>
      startServer(loadConfig(env), {
        version: manifest.manifest.app_version,
        webRoot: root,
        logger: createLogger('silent'),
      }),
    { prefix: 'fileshare-verify-web-server-' },
  )
  servers.push(server)
  return server.url
}

/** The app's files as they are, under a policy the test chooses, from a plain static server. */
async function hostWithPolicy(policy: string): Promise<string> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname
    const file = path === '/' ? 'index.html' : path.slice(1)
    if (path === '/api/health') {
      response.writeHead(200, { 'Content-Type': 'application/json' })
      response.end(JSON.stringify({ status: 'ok', version: manifest.manifest.app_version }))
      return
    }
    readFile(join(WEB_DIST, file)).then(
      (bytes) => {
        response.writeHead(200, { 'Content-Security-Policy': policy })
        response.end(bytes)
      },
      () => {
        response.writeHead(404)
        response.end()
      },
    )
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  plain.push(server)
  const { port } = server.address() as { port: number }
  return `http://127.0.0.1:${port}`
}

async function verify(url: string, ...extra: string[]) {
  const manifestFile = join(WEB_DIST, 'integrity.json')
  return runCli(['verify-web', url, '--manifest', manifestFile, ...extra], {
    env: { HOME: await newHome() },
  })
}

describe('fileshare verify-web', () => {
  it('passes a served app that matches its manifest, file by file', async () => {
    const url = await host('as-built')
    const result = await verify(url, '--json')
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const report = JSON.parse(result.stdout)
    expect(report).toMatchObject({ verified: true, faults: [], origin: url })
    expect(report.checked).toBe(Object.keys(manifest.manifest.files).length)
    // A link of the server is checked as the page it serves.
    const link = await verify(`${url}/d/00000000-0000-4000-8000-000000000000`)
    expect(link.code).toBe(0)
    expect(link.stdout).toContain(
      `matches the manifest of version ${manifest.manifest.app_version}`,
    )
  })

  it('names an altered module and exits 1', async () => {
    let altered = ''
    const url = await host('altered', async (root) => {
      altered = (await readdir(join(root, 'assets'))).find((f) => /^About-.*\.js$/.test(f))!
      await appendFile(join(root, 'assets', altered), '\n;fetch("https://evil.example")\n')
    })
    const result = await verify(url)
    expect(result.code).toBe(1)
    expect(result.stdout).toBe(`/assets/${altered}: differs from the manifest\n`)
    expect(result.stderr).toContain('does not match the manifest')
  })

  it('names a page that loads what the manifest lacks, and a policy that no longer pins it', async () => {
    const url = await host('extra-script', async (root) => {
      const page = join(root, 'index.html')
      const html = (await readFile(page, 'utf8')).replace(
        '</head>',
        '<script src="/assets/extra.js"></script><script src="https://cdn.example/x.js"></script></head>',
      )
      await writeFile(page, html)
      await writeFile(join(root, 'assets', 'extra.js'), 'void 0')
      // Rebuilt by a hostile operator: the server's policy follows the manifest it serves.
      await rm(join(root, 'integrity.json'))
    })
    const result = await verify(url, '--json')
    expect(result.code).toBe(1)
    const { faults, verified } = JSON.parse(result.stdout)
    expect(verified).toBe(false)
    expect(faults).toEqual(
      expect.arrayContaining([
        { what: '/', detail: 'differs from the manifest' },
        { what: '/index.html', detail: 'differs from the manifest' },
        { what: '/', detail: 'loads /assets/extra.js, which the manifest lacks' },
        { what: '/', detail: 'loads https://cdn.example/x.js from another origin' },
        {
          what: 'Content-Security-Policy',
          detail: expect.stringMatching(/^script-src lacks 'sha256-/),
        },
      ]),
    )
  })

  it('names a policy that lets the page send data elsewhere, unless that origin is allowed', async () => {
    const widened = manifest.manifest.default_csp.replace(
      "connect-src 'self'",
      "connect-src 'self' https://s3.example.org",
    )
    const url = await hostWithPolicy(widened)
    const refused = await verify(url)
    expect(refused.code).toBe(1)
    expect(refused.stdout).toBe(
      'Content-Security-Policy: connect-src adds https://s3.example.org\n',
    )
    const allowed = await verify(url, '--allow-connect', 'https://s3.example.org')
    expect(allowed.code).toBe(0)
  })

  it('uses the manifest a release carries, for the same version only', async () => {
    const url = await host('carried')
    // A release's package: the command's code with the web app's manifest beside it, made outside
    // the source tree (which the lint step may walk while this test runs), its dependencies
    // those of this package.
    const pkg = fileURLToPath(new URL('..', import.meta.url))
    const release = await mkdtemp(join(temp, 'release-'))
    const dist = join(release, 'dist')
    await cp(join(CLI, '..'), dist, { recursive: true })
    await cp(join(pkg, 'package.json'), join(release, 'package.json'))
    await symlink(join(pkg, 'node_modules'), join(release, 'node_modules'), 'dir')
    try {
      const command = [process.execPath, join(dist, 'index.js')]
      const env = { HOME: await newHome() }
      const none = await runCli(['verify-web', url], { command, env })
      expect(none.code).toBe(1)
      expect(none.stderr).toContain('carries no manifest of the web app')

      await cp(join(WEB_DIST, 'integrity.json'), join(dist, 'web-integrity.json'))
      const same = await runCli(['verify-web', url], { command, env })
      expect(same.stderr).toBe('')
      expect(same.code).toBe(0)

      const other = { ...manifest, manifest: { ...manifest.manifest, app_version: '0.0.1' } }
      await writeFile(join(dist, 'web-integrity.json'), JSON.stringify(other))
      const older = await runCli(['verify-web', url], { command, env })
      expect(older.code).toBe(1)
      expect(older.stderr).toContain(
        `The server runs version ${manifest.manifest.app_version}; the manifest is of version 0.0.1`,
      )
    } finally {
      await rm(release, { recursive: true, force: true })
    }
  })

  it('refuses a manifest file that is not one', async () => {
    const file = join(temp, 'not-a-manifest.json')
    await writeFile(file, JSON.stringify({ manifest: { files: {} } }))
    const result = await runCli(['verify-web', 'http://127.0.0.1:9', '--manifest', file], {
      env: { HOME: await newHome() },
    })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('is not an integrity manifest')
  })
})

describe('the manifest the build writes', () => {
  it("hashes the page the server serves at '/' as index.html", async () => {
    const page = await readFile(join(WEB_DIST, 'index.html'))
    const hash = createHash('sha256').update(page).digest('hex')
    expect(manifest.manifest.files['/']).toBe(hash)
    expect(manifest.manifest.files['/index.html']).toBe(hash)
  })
})
