/**
 * The suites, the servers they start in process and those they start as processes of their own
 * run on one Node: the one scripts/test-node-lts.mjs gave them (FILESHARE_TEST_NODE), else this.
 */
import { describe, expect, it } from 'vitest'

import { startTestServer } from './harness.js'
import { spawnedServers } from './spawned-servers.js'

const GIVEN = process.env.FILESHARE_TEST_NODE
const spawned = spawnedServers('fileshare-node-')

describe('the Node under the server suites', { timeout: 60_000 }, () => {
  it.runIf(GIVEN)(`is the one they were given, ${GIVEN}`, async () => {
    expect(process.version).toBe(GIVEN)
    // The in-process server answers from this very process.
    const server = await startTestServer()
    try {
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
    } finally {
      await server.close()
    }
  })

  it('runs the servers the suites spawn too', async () => {
    const server = await spawned.start({
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      DATA_DIR: await spawned.dataDir(),
      // NODE_OPTIONS is split at spaces and drops quotes: the code has neither.
      NODE_OPTIONS: '--import=data:text/javascript,console.log(`node:${process.version}`)',
    })
    expect(server.output()).toContain(`node:${GIVEN ?? process.version}\n`)
  })
})
