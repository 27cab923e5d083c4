/**
 * A 5 GiB file inside a folder: the archive needs Zip64 (entry and archive over 4 GiB), and the
 * command's memory must stay flat while it streams through zip, encryption, upload, download,
 * decryption and extraction. The same ceiling holds for a 1 GiB file sent over chunked HTTP,
 * where every chunk is a 10 MB body. The files are sparse, so the tests cost disk only for the
 * ciphertext.
 */
import { mkdir, mkdtemp, rm, stat, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, expect, it } from 'vitest'

import { CliUser } from './cli-runner.js'
import { MiB, sha256File } from './files.js'
import { startTestServer, type TestServer } from './server.js'

const GiB = 1024 * MiB
const SIZE = 5 * GiB
/** The ceiling for the command's peak RSS, whatever the file size. */
const RSS_LIMIT = 250 * 1000 * 1000

let server: TestServer
let user: CliUser
let work: string

beforeAll(async () => {
  server = await startTestServer()
  user = await CliUser.create(server.url)
  work = await mkdtemp(join(tmpdir(), 'fileshare-cli-zip64-'))
})

afterAll(async () => {
  await server?.close()
  await rm(work, { recursive: true, force: true })
  await rm(user.home, { recursive: true, force: true })
})

it(
  'sends and gets back a 5 GiB file in a folder with flat memory',
  { timeout: 900_000 },
  async () => {
    const source = join(work, 'src', 'big')
    await mkdir(source, { recursive: true })
    await writeFile(join(source, 'small.txt'), 'next to a big one\n')
    const big = join(source, 'huge.img')
    await writeFile(big, 'start')
    await truncate(big, SIZE)
    await writeFile(join(source, 'tail.bin'), Buffer.alloc(10, 1))

    const measured = { measurePeakRss: true }
    const sent = await user.ok(['send', source, '--json'], measured)
    const { link, uploadSize } = JSON.parse(sent.stdout) as { link: string; uploadSize: number }
    expect(uploadSize).toBeGreaterThan(SIZE)
    expect(sent.peakRss).toBeLessThan(RSS_LIMIT)

    const target = join(work, 'out')
    const got = await user.ok(['get', link, '-o', target, '--json'], measured)
    expect(got.peakRss).toBeLessThan(RSS_LIMIT)
    const back = join(target, 'big', 'huge.img')
    expect((await stat(back)).size).toBe(SIZE)
    expect(await sha256File(back)).toBe(await sha256File(big))
    expect(await sha256File(join(target, 'big', 'tail.bin'))).toBe(
      await sha256File(join(source, 'tail.bin')),
    )
  },
)

it(
  'sends a 1 GiB file over chunked HTTP within the same memory ceiling',
  { timeout: 300_000 },
  async () => {
    const file = join(work, 'chunked.img')
    await writeFile(file, 'start')
    await truncate(file, GiB)
    const measured = { measurePeakRss: true }
    const sent = await user.ok(['send', file, '--no-websocket', '--json'], measured)
    const { link, transport } = JSON.parse(sent.stdout) as { link: string; transport: string }
    expect(transport).toBe('http')
    expect(sent.peakRss).toBeLessThan(RSS_LIMIT)
    const out = join(work, 'chunked-out')
    await user.ok(['get', link, '-o', out, '--json'])
    expect(await sha256File(join(out, 'chunked.img'))).toBe(await sha256File(file))
  },
)
