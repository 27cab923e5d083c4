/**
 * The nginx and Caddy configurations of docs/deploy.md, as written there, in front of the built
 * server: the command line sends over the WebSocket and over chunked HTTP (chunks above nginx's
 * default body limit) and gets both back byte for byte through TLS, and the server counts each
 * client by the address the proxy saw.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { HEADERS } from '@fileshare/protocol'
import { freePort, spawnServer, type SpawnedServer } from '@fileshare/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { CliUser } from './cli-runner.js'
import { MiB } from './files.js'
import {
  CADDY,
  NGINX,
  getThrough,
  installed,
  throwawayCertificate,
  type Certificate,
  type ReverseProxy,
  type RunningProxy,
} from './reverse-proxy.js'
import { roundTripsBothWays } from './round-trip.js'

const RATE_LIMIT_MAX = 10_000
const SERVER_ENTRY = fileURLToPath(import.meta.resolve('@fileshare/server/dist/index.js'))
const PROXIES = [NGINX, CADDY]
/** Proxies to leave out: none under CI, where a missing one fails the suite. */
const absent = new Set<string>()
for (const proxy of PROXIES) {
  if (process.env.CI !== 'true' && !(await installed(proxy.program))) absent.add(proxy.name)
}

describe.each(PROXIES)('$name as docs/deploy.md configures it', (proxy: ReverseProxy) => {
  const skip = absent.has(proxy.name)
  let work: string
  let certificate: Certificate
  let server: SpawnedServer
  let running: RunningProxy
  let port: number
  let user: CliUser

  beforeAll(async () => {
    if (skip) return
    work = await mkdtemp(join(tmpdir(), `fileshare-proxy-${proxy.program}-`))
    certificate = await throwawayCertificate(work)
    port = await freePort()
    server = await spawnServer({
      entry: SERVER_ENTRY,
      env: {
        HOST: '127.0.0.1',
        DATA_DIR: join(work, 'data'),
        BASE_URL: `https://127.0.0.1:${port}`,
        TRUST_PROXY: 'true',
        RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
        LOG_LEVEL: 'warn',
      },
    })
    running = await proxy.start({
      dir: work,
      upstream: `127.0.0.1:${server.port}`,
      port,
      redirectPort: await freePort(),
      certificate,
    })
    user = await CliUser.create(`https://127.0.0.1:${port}`)
  })

  afterAll(async () => {
    await running?.stop()
    await server?.stop()
    if (work !== undefined) await rm(work, { recursive: true, force: true })
    if (user !== undefined) await rm(user.home, { recursive: true, force: true })
  })

  const cliOptions = () => ({ env: { NODE_EXTRA_CA_CERTS: certificate.cert } })

  it.skipIf(skip)(
    'counts each client by the address the proxy saw, whatever X-Forwarded-For it sent',
    async () => {
      // Security: a client cannot pick its rate-limit bucket by sending its own X-Forwarded-For.
      const ca = await readFile(certificate.cert)
      const remaining = async (localAddress: string, forwardedFor?: string) => {
        const answer = await getThrough(port, '/api/config', {
          ca,
          localAddress,
          ...(forwardedFor !== undefined ? { headers: { 'X-Forwarded-For': forwardedFor } } : {}),
        })
        expect(answer.status).toBe(200)
        return Number(answer.headers[HEADERS.rateLimitRemaining.toLowerCase()])
      }
      // The proxy reaches the server from 127.0.0.1, which its own health checks have used.
      expect(await remaining('127.0.0.2')).toBe(RATE_LIMIT_MAX - 1)
      expect(await remaining('127.0.0.2')).toBe(RATE_LIMIT_MAX - 2)
      expect(await remaining('127.0.0.3', '198.51.100.7')).toBe(RATE_LIMIT_MAX - 1)
      expect(await remaining('127.0.0.3', '198.51.100.8')).toBe(RATE_LIMIT_MAX - 2)
    },
  )

  it.skipIf(skip)(
    'carries a WebSocket upload, a chunked upload and their downloads byte for byte',
    async () => {
      // The chunked upload's first chunk of 10 MB is far above nginx's default body limit.
      await roundTripsBothWays(user, work, {
        webSocketSize: 5 * MiB,
        chunkedSize: 12 * MiB,
        options: cliOptions(),
      })
    },
  )
})
