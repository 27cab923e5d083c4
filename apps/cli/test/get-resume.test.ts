/**
 * Resumed downloads end to end: `fileshare get` through a proxy that cuts the answer twice saves
 * the file whole and counts one download (the rest comes under the read grant); a grant that
 * lapsed before the resume is named plainly.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { startDropProxy, type DropProxy } from '@fileshare/testing/drop-proxy'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'

import { CliUser } from './cli-runner.js'
import { MiB, sha256File, writeRandomFile } from './files.js'
import { startTestServer, type TestServer } from './server.js'

const HOUR = 3_600_000

let server: TestServer
let work: string
let proxy: DropProxy | undefined
/** Added to the server's clock. */
let shift = 0

beforeAll(async () => {
  server = await startTestServer({}, () => Date.now() + shift)
  work = await mkdtemp(join(tmpdir(), 'fileshare-cli-get-resume-'))
})

afterEach(async () => {
  await proxy?.close()
  proxy = undefined
  shift = 0
})

afterAll(async () => {
  await server?.close()
  await rm(work, { recursive: true, force: true })
})

/** Sends `size` random bytes allowing three downloads; answers the file and its link. */
async function sendFile(user: CliUser, name: string, size: number) {
  const path = join(work, name)
  await writeRandomFile(path, size)
  const sent = await user.ok(['send', path, '--downloads', '3', '--json'])
  const { link, id } = JSON.parse(sent.stdout) as { link: string; id: string }
  return { path, link, id }
}

async function downloadCount(id: string): Promise<number> {
  const res = await fetch(`${server.url}/api/info/${id}`)
  return ((await res.json()) as { downloadCount: number }).downloadCount
}

it('resumes a download cut twice from the byte reached, counting one download', async () => {
  const user = await CliUser.create(server.url)
  const file = await sendFile(user, 'cut-twice.bin', 9 * MiB)
  const port = Number(new URL(server.url).port)
  proxy = await startDropProxy({ targetPort: port, dropAt: [3 * MiB, 6 * MiB], direction: 'down' })
  const out = await mkdtemp(join(work, 'out-'))
  const got = await user.ok(['get', file.link.replace(server.url, proxy.url), '-o', out])
  expect(proxy.drops).toBe(2)
  expect(got.stderr).toMatch(/Connection lost; resumed at .* \(attempt 1\)/)
  expect(got.stderr).toMatch(/Connection lost; resumed at .* \(attempt 2\)/)
  expect(await sha256File(join(out, 'cut-twice.bin'))).toBe(await sha256File(file.path))
  expect(await downloadCount(file.id)).toBe(1)
})

it('says plainly that a download broke off past its read grant', async () => {
  const user = await CliUser.create(server.url)
  const file = await sendFile(user, 'lapsed.bin', 6 * MiB)
  const port = Number(new URL(server.url).port)
  proxy = await startDropProxy({
    targetPort: port,
    dropAt: [3 * MiB],
    direction: 'down',
    // The grant lapses while the connection is away.
    onDrop: () => void (shift = 7 * HOUR),
  })
  const out = await mkdtemp(join(work, 'out-'))
  const got = await user.ok(['get', file.link.replace(server.url, proxy.url), '-o', out], {}, 3)
  expect(got.stderr).toMatch(
    /The download broke off at [0-9.]+ MiB and its read grant has expired; getting it again counts a download \(2 of 3 left\): run `fileshare get` again/,
  )
  expect(await downloadCount(file.id)).toBe(1)
})
