/**
 * Exits 0 when the server configured by this environment answers healthy, else 1 with one line:
 * the container image's HEALTHCHECK, which follows `PORT` and `HOST` as the server does.
 * May touch: the network (the server's own /api/health); process state (env, stderr, exit code).
 */
import { HEALTH_STATUS_OK, type HealthResponse } from '@fileshare/protocol'

import { loadConfig } from './config.js'
import { healthUrl } from './health-url.js'

const TIMEOUT_MS = 4000

async function probe(): Promise<string | undefined> {
  const url = healthUrl(loadConfig())
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) })
    const body = (await res.json()) as HealthResponse
    if (res.status === 200 && body.status === HEALTH_STATUS_OK) return undefined
    return `${url} answered ${res.status} ${body.status}`
  } catch (err) {
    return `${url} did not answer: ${(err as Error).message}`
  }
}

// A setting the probe cannot read is a problem too.
const problem = await probe().catch((err: unknown) => (err as Error).message)
if (problem !== undefined) {
  console.error(`fileshare: ${problem}`)
  process.exit(1)
}
