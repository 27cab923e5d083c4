/**
 * A 5 GiB file inside a folder: the archive needs Zip64 (entry and archive over 4 GiB), and the
 * command's memory must stay flat while it streams through zip, encryption, upload, download,
 * decryption and extraction. The same ceiling holds for a 1 GiB file sent over chunked HTTP,
 * where every chunk is a 10 MB body. The files are sparse, so the tests cost disk only for the
 * ciphertext.
 */
import { mkdir, stat, truncate, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

import { expect, it } from 'vitest'

import { MiB, sha256File } from './files.js'
import { serveUser } from './served-user.js'

const GiB = 1024 * MiB
const SIZE = 5 * GiB
/** The ceiling for the command's peak RSS, whatever the file size. */
const RSS_LIMIT = 250 * 1000 * 1000

const suite = serveUser({ workPrefix: 'fileshare-cli-zip64-' })

it(
  'sends and gets back a 5 GiB file in a folder with flat memory',
  { timeout: 900_000 },
  async () => {
    const source = join(suite.work, 'src', 'big')
    await mkdir(source, { recursive: true })
    await writeFile(join(source, 'small.txt'), 'next to a big one\n')
    const big = join(source, 'huge.img')
    await writeFile(big, 'start')
    await truncate(big, SIZE)
    await writeFile(join(source, 'tail.bin'), Buffer.alloc(10, 1))

    const measured = { measurePeakRss: true }
    const sent = await suite.user.ok(['send', source, '--json'], measured)
    const { link, uploadSize } = JSON.parse(sent.stdout) as { link: string; uploadSize: number }
    expect(uploadSize).toBeGreaterThan(SIZE)
    expect(sent.peakRss).toBeLessThan(RSS_LIMIT)

    const target = join(suite.work, 'out')
    const got = await suite.user.ok(['get', link, '-o', target, '--json'], measured)
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
    const file = join(suite.work, 'chunked.img')
    await writeFile(file, 'start')
    await truncate(file, GiB)
    const measured = { measurePeakRss: true }
    const sent = await suite.user.ok(['send', file, '--no-websocket', '--json'], measured)
    const { link, transport } = JSON.parse(sent.stdout) as { link: string; transport: string }
    expect(transport).toBe('chunks')
    expect(sent.peakRss).toBeLessThan(RSS_LIMIT)
    const out = join(suite.work, 'chunked-out')
    await suite.user.ok(['get', link, '-o', out, '--json'])
    expect(await sha256File(join(out, 'chunked.img'))).toBe(await sha256File(file))
  },
)
