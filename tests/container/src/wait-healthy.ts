/** Waiting for a started container's server to answer its health route. */
import { setTimeout as sleep } from 'node:timers/promises'

import { podmanStatus } from './podman.js'

/** Resolves once `${url}/api/health` answers 200; rejects after `timeoutMs` with the last error. */
export async function waitHealthy(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let last = 'no answer'
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2000) })
      if (res.status === 200) return
      last = `status ${res.status}`
    } catch (err) {
      last = (err as Error).message
    }
    await sleep(250)
  }
  throw new Error(`${url} did not become healthy within ${timeoutMs} ms: ${last}`)
}

/**
 * Resolves once the container's own health probe succeeds, for a container whose port is not
 * published; rejects after `timeoutMs`.
 */
export async function waitContainerHealthy(container: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if ((await podmanStatus(['exec', container, 'node', 'dist/health-probe.js'])) === 0) return
    await sleep(500)
  }
  throw new Error(`${container} did not become healthy within ${timeoutMs} ms`)
}
