/**
 * compose.cluster.yaml as a self-hoster would run it: two fileshare instances on one PostgreSQL
 * and one shared data volume, behind nginx, used with the `fileshare` command from the host. The
 * official postgres and nginx images are replaced by stand-ins built from Debian's packages, since
 * no registry is reachable here. Outside CI a machine without podman (or a user other than root)
 * skips the suite; under CI it fails instead.
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
import { podman, unmetNeeds } from './podman.js'
import { ensureServiceImage } from './service-image.js'
import { standInImage } from './stand-in-images.js'
import { waitContainerHealthy, waitHealthy } from './wait-healthy.js'

const unmet = unmetNeeds()
const runs = unmet.length === 0 || Boolean(process.env.CI)
if (!runs) console.warn(`cluster suite skipped: ${unmet.join(', ')} (CI=true fails instead)`)

const INSTANCES = ['fileshare-1', 'fileshare-2']
const FILE_NAME = 'payload.bin'
/** A file spanning several of the 1 MiB records, with a ragged end. */
const PAYLOAD = randomBytes(2 * 1024 * 1024 + 4321)
/** One request line of an instance's log: method, route pattern, status, duration. */
const REQUEST_LINE = /\b(GET|POST|PUT|PATCH|DELETE|HEAD) (\/api\/\S*) \d{3} \d+ms$/gm

let work: string
let cli: Cli
let url: string
let compose: ComposeProject
let link: string

function log(line: string): void {
  console.log(`cluster: ${line}`)
}

/** The routes an instance's log shows it answered, one per request, since its container started. */
async function answeredRoutes(service: string): Promise<string[]> {
  const [container] = await compose.containers(service)
  if (!container) throw new Error(`no running container of ${service}`)
  const { stdout } = await podman(['logs', container])
  return [...stdout.matchAll(REQUEST_LINE)].map((match) => `${match[1]} ${match[2]}`)
}

/** Per instance, the routes answered since `before` was taken (logs only grow). */
async function routesSince(before: string[][]): Promise<string[][]> {
  const now = await Promise.all(INSTANCES.map(answeredRoutes))
  return now.map((routes, i) => routes.slice(before[i]?.length ?? 0))
}

describe.runIf(runs)('compose.cluster.yaml', () => {
  beforeAll(async () => {
    if (unmet.length > 0) throw new Error(`the cluster suite cannot run: ${unmet.join(', ')}`)
    work = await mkdtemp(join(tmpdir(), 'fileshare-cluster-'))
    cli = new Cli(work)
    await writeFile(join(work, FILE_NAME), PAYLOAD)

    let started = Date.now()
    const base = await testBaseImage(log)
    const image = inject('serviceImage')
    const [built, postgres, nginx] = await Promise.all([
      ensureServiceImage(base, image),
      standInImage('postgres', base, log),
      standInImage('nginx', base, log),
    ])
    log(`images ready in ${seconds(started)} (fileshare ${built ? 'built' : 'reused'})`)

    const port = await freePort()
    url = `http://127.0.0.1:${port}`
    const project = `fileshare-cluster-${randomUUID().slice(0, 8)}`
    compose = composeProject('compose.cluster.yaml', project, {
      FILESHARE_IMAGE: image,
      POSTGRES_IMAGE: postgres,
      NGINX_IMAGE: nginx,
      POSTGRES_PASSWORD: randomBytes(18).toString('hex'),
      FILESHARE_PORT: `127.0.0.1:${port}`,
      BASE_URL: url,
    })
    started = Date.now()
    await compose.run(['up', '--detach', '--no-build'])
    // The first start makes the database; an instance that finds none yet exits and is restarted.
    await Promise.all(INSTANCES.map(async (service) => waitFor(service)))
    await waitHealthy(url)
    log(`stack up and healthy in ${seconds(started)}`)
  })

  afterAll(async () => {
    if (compose) await compose.run(['down', '--volumes']).catch(() => undefined)
    if (work) await rm(work, { recursive: true, force: true })
  })

  it('uploads and downloads through nginx, answered by both instances', async () => {
    const before = await Promise.all(INSTANCES.map(answeredRoutes))
    link = await cli.send(url, join(work, FILE_NAME))
    expect((await cli.get(link, FILE_NAME)).equals(PAYLOAD)).toBe(true)
    const since = await routesSince(before)
    log(`requests per instance: ${since.map((routes) => routes.length).join(', ')}`)
    for (const routes of since) expect(routes.length).toBeGreaterThan(0)
  })

  it('lets a 3-view note be read exactly 3 times by 6 readers spread over the instances', async () => {
    const note = await cli.note(url, 'read me three times', 3)
    const before = await Promise.all(INSTANCES.map(answeredRoutes))
    const reads = await Promise.allSettled(Array.from({ length: 6 }, () => cli.noteGet(note)))
    const read = reads.filter((result) => result.status === 'fulfilled')
    expect(read).toHaveLength(3)
    for (const result of read) expect(result.value).toContain('read me three times')
    for (const result of reads) {
      if (result.status === 'rejected') expect(String(result.reason)).toMatch(/View limit reached/)
    }
    // Every reader's view request reached an instance, none was answered twice.
    const views = (await routesSince(before)).map(
      (routes) => routes.filter((route) => route === 'POST /api/note/:id/view').length,
    )
    log(`view requests per instance: ${views.join(', ')}`)
    expect(views.reduce((sum, count) => sum + count, 0)).toBeLessThanOrEqual(6)
    expect(views.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(3)
  })

  it('serves while one instance restarts, and that instance again after a reload', async () => {
    const [container] = await compose.containers('fileshare-1')
    await podman(['restart', '--time', '20', container ?? 'fileshare-1'])
    // nginx leaves the restarted instance out and sends everything to the other.
    expect((await cli.get(link, FILE_NAME)).equals(PAYLOAD)).toBe(true)
    await waitContainerHealthy(container ?? 'fileshare-1')

    // The restarted instance has a new address, which nginx learns on a reload (docs/container.md);
    // then it answers its share of the next requests again.
    const [proxy] = await compose.containers('nginx')
    await podman(['exec', proxy ?? 'nginx', 'nginx', '-s', 'reload'])
    const before = await Promise.all(INSTANCES.map(answeredRoutes))
    for (let i = 0; i < 6; i++) expect((await fetch(`${url}/api/config`)).status).toBe(200)
    const since = await routesSince(before)
    log(`requests per instance after the restart: ${since.map((r) => r.length).join(', ')}`)
    expect(since[0]?.length).toBeGreaterThan(0)
  })

  it('keeps uploads in its volumes across down and up', async () => {
    await compose.run(['down'])
    await compose.run(['up', '--detach', '--no-build'])
    await Promise.all(INSTANCES.map(async (service) => waitFor(service)))
    await waitHealthy(url)
    expect((await cli.get(link, FILE_NAME)).equals(PAYLOAD)).toBe(true)
  })
})

/** Waits until the service's container answers its health probe, through restarts. */
async function waitFor(service: string): Promise<void> {
  const deadline = Date.now() + 180_000
  while (Date.now() < deadline) {
    const [container] = await compose.containers(service)
    if (container) {
      const remaining = Math.max(1000, Math.min(60_000, deadline - Date.now()))
      const healthy = await waitContainerHealthy(container, remaining).then(
        () => true,
        () => false,
      )
      if (healthy) return
    }
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  throw new Error(`${service} did not become healthy`)
}
