/**
 * The container image and compose.yaml, run as a self-hoster would: built with podman, started
 * with a data volume and a read-only root, used with the `fileshare` command from the host,
 * restarted, probed by its HEALTHCHECK and stopped with SIGTERM. Outside CI a machine without
 * podman (or a user other than root) skips the suite; under CI it fails instead.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { freePort } from '@fileshare/testing'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import { testBaseImage } from './base-image.js'
import { Cli } from './cli.js'
import { composeProject, type ComposeProject } from './compose.js'
import { seconds } from './elapsed.js'
import { podman, podmanStatus, unmetNeeds } from './podman.js'
import { ensureServiceImage, imageSize, megabytes } from './service-image.js'
import { waitHealthy } from './wait-healthy.js'

const unmet = unmetNeeds()
const runs = unmet.length === 0 || Boolean(process.env.CI)
if (!runs) console.warn(`container suite skipped: ${unmet.join(', ')} (CI=true fails instead)`)

const suffix = randomUUID().slice(0, 8)
const IMAGE = inject('serviceImage')
const FILE_NAME = 'payload.bin'
const PORT = 8080
/** A file spanning several of the 1 MiB records, with a ragged end. */
const PAYLOAD = randomBytes(3 * 1024 * 1024 + 12345)

let work: string
let cli: Cli
let payloadPath: string
const cleanups: (() => Promise<unknown>)[] = []

function log(line: string): void {
  console.log(`container: ${line}`)
}

describe.runIf(runs)('fileshare in a container', () => {
  beforeAll(async () => {
    if (unmet.length > 0) throw new Error(`the container suite cannot run: ${unmet.join(', ')}`)
    work = await mkdtemp(join(tmpdir(), 'fileshare-container-'))
    cli = new Cli(work)
    payloadPath = join(work, FILE_NAME)
    await writeFile(payloadPath, PAYLOAD)

    let started = Date.now()
    const base = await testBaseImage(log)
    log(`base image ${base} ready in ${seconds(started)}`)
    started = Date.now()
    const built = await ensureServiceImage(base, IMAGE)
    const [size, baseSize] = await Promise.all([imageSize(IMAGE), imageSize(base)])
    log(
      `image ${built ? 'built' : 'reused'} in ${seconds(started)}: ${megabytes(size)} ` +
        `(base ${megabytes(baseSize)}, fileshare's layers ${megabytes(size - baseSize)})`,
    )
  })

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined)
    if (work) await rm(work, { recursive: true, force: true })
  })

  describe('the container image', () => {
    const name = `fileshare-test-${suffix}`
    const volume = `fileshare-test-data-${suffix}`
    let url: string

    beforeAll(async () => {
      const port = await freePort()
      url = `http://127.0.0.1:${port}`
      await podman(['volume', 'create', volume])
      cleanups.push(() => podman(['volume', 'rm', '--force', volume]))
      cleanups.push(() => podman(['rm', '--force', '--time', '0', name]))
      // Without the tmpfs podman would mount on /tmp: the server needs no writable place but /data.
      await podman([
        'run',
        '--detach',
        '--name',
        name,
        '--read-only',
        '--read-only-tmpfs=false',
        '--volume',
        `${volume}:/data`,
        // Another port than the default, which the health check must follow.
        '--publish',
        `127.0.0.1:${port}:${PORT}`,
        '--env',
        `PORT=${PORT}`,
        '--env',
        `BASE_URL=${url}`,
        // The health check runs on demand below; a timer would need systemd on the host.
        '--health-interval',
        'disable',
        IMAGE,
      ])
      await waitHealthy(url)
    })

    it('runs as a user other than root, on a root filesystem it cannot write', async () => {
      await expectUnprivileged(name)
    })

    it('starts Node with the flags the server wants for its cores', async () => {
      const { stdout } = await podman(['logs', name])
      expect(stdout).toMatch(/^fileshare: \d+ cores?, /m)
      expect(stdout).not.toContain('was started without')
    })

    it("keeps its database with Node's node:sqlite, and the image holds no compiled SQLite", async () => {
      const { stdout } = await podman(['logs', name])
      expect(stdout).toContain('(SQLite on node:sqlite, data in /data)')
      // Neither the package nor its compiled module; drizzle-orm's adapter for it is plain JS.
      const find = ['exec', name, 'find', '/app', '-path', '*/node_modules/better-sqlite3']
      const compiled = ['exec', name, 'find', '/app', '-name', 'better_sqlite3.node']
      expect((await podman(find)).stdout + (await podman(compiled)).stdout).toBe('')
    })

    it('answers its HEALTHCHECK while it runs', async () => {
      const { stdout } = await podman(['inspect', '--format', '{{json .Config.Healthcheck}}', name])
      expect(stdout).toContain('health-probe')
      expect(await podmanStatus(['healthcheck', 'run', name])).toBe(0)
    })

    it('keeps an upload in its volume across a restart', async () => {
      const link = await cli.send(url, payloadPath)
      expect((await cli.get(link, FILE_NAME)).equals(PAYLOAD)).toBe(true)

      const started = Date.now()
      await podman(['stop', '--time', '20', name])
      const stopMs = Date.now() - started
      const { stdout: exit } = await podman(['inspect', '--format', '{{.State.ExitCode}}', name])
      expect(exit.trim()).toBe('0')
      expect(stopMs).toBeLessThan(5000)
      const { stdout: logs } = await podman(['logs', name])
      expect(logs).toContain('fileshare stopping on SIGTERM')
      log(`stopped by SIGTERM in ${stopMs} ms`)

      await podman(['start', name])
      await waitHealthy(url)
      expect((await cli.get(link, FILE_NAME)).equals(PAYLOAD)).toBe(true)
    })

    it('fails its health probe when nothing answers on PORT', async () => {
      const probe = ['exec', '--env', 'PORT=1', name, 'node', 'dist/health-probe.js']
      expect(await podmanStatus(probe)).toBe(1)
    })
  })

  describe('compose.yaml', () => {
    const project = `fileshare-test-${suffix}`
    let url: string
    let compose: ComposeProject

    beforeAll(async () => {
      const port = await freePort()
      url = `http://127.0.0.1:${port}`
      const env = { FILESHARE_IMAGE: IMAGE, FILESHARE_PORT: `127.0.0.1:${port}`, BASE_URL: url }
      compose = composeProject('compose.yaml', project, env)
      cleanups.push(() => compose.run(['down', '--volumes']))
    })

    it('runs as a user other than root, on a root filesystem it cannot write', async () => {
      await compose.run(['up', '--detach', '--no-build'])
      await waitHealthy(url)
      const names = await compose.containers('fileshare')
      expect(names).toHaveLength(1)
      await expectUnprivileged(names[0] ?? '')
    })

    it('serves from its named volume, which outlives the containers', async () => {
      const link = await cli.send(url, payloadPath)
      expect((await cli.get(link, FILE_NAME)).equals(PAYLOAD)).toBe(true)

      await compose.run(['down'])
      await compose.run(['up', '--detach', '--no-build'])
      await waitHealthy(url)
      expect((await cli.get(link, FILE_NAME)).equals(PAYLOAD)).toBe(true)
    })
  })
})

/**
 * The container's processes are not root's, and its root filesystem is read-only: even root,
 * exec'd into it, cannot write to / or /app.
 */
async function expectUnprivileged(container: string): Promise<void> {
  const { stdout } = await podman(['exec', container, 'id', '-u'])
  expect(Number(stdout.trim())).not.toBe(0)
  for (const path of ['/written-by-test', '/app/written-by-test']) {
    const write = podman(['exec', '--user', '0', container, 'sh', '-c', `echo x > ${path}`])
    await expect(write).rejects.toMatchObject({ stderr: expect.stringContaining('Read-only') })
  }
}
