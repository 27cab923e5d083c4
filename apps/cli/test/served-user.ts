/**
 * What most end-to-end suites start from: a test server and a CLI user of it, and a scratch
 * folder when asked, started before the file's tests and removed after them.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll } from 'vitest'

import { CliUser } from './cli-runner.js'
import { startTestServer, type TestServer } from './server.js'

export interface ServedUser {
  server: TestServer
  user: CliUser
  /** The scratch folder; empty without `workPrefix`. */
  work: string
}

/** Registers the hooks; the fields are set once the file's `beforeAll` hooks have run. */
export function serveUser(o: { workPrefix?: string } = {}): ServedUser {
  const served: Partial<ServedUser> = {}
  beforeAll(async () => {
    served.server = await startTestServer()
    served.user = await CliUser.create(served.server.url)
    served.work = o.workPrefix ? await mkdtemp(join(tmpdir(), o.workPrefix)) : ''
  })
  afterAll(async () => {
    await served.server?.close()
    if (served.user) await rm(served.user.home, { recursive: true, force: true })
    if (served.work) await rm(served.work, { recursive: true, force: true })
  })
  return served as ServedUser
}
