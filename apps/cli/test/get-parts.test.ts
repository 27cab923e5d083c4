/**
 * `fileshare get --list` and `--only` against the real server on a folder upload: one download is
 * counted, and only the archive's directory (and the chosen entries) cross the network, not the
 * large filler entry, as the bytes a proxy forwards show.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

import { startDropProxy, type DropProxy } from '@fileshare/testing/drop-proxy'
import { afterEach, expect, it } from 'vitest'

import type { CliUser } from './cli-runner.js'
import { MiB, sha256File, writeRandomFile } from './files.js'
import { serveUser } from './served-user.js'

const FILLER = 64 * MiB

const served = serveUser({ workPrefix: 'fileshare-cli-get-parts-' })
let proxy: DropProxy | undefined

afterEach(async () => {
  await proxy?.close()
  proxy = undefined
})

/** Sends a folder with a small file, a nested one and a large filler; answers its link. */
async function sendFolder(user: CliUser, name: string) {
  const folder = join(served.work, name)
  await mkdir(join(folder, 'sub'), { recursive: true })
  await writeFile(join(folder, 'note.txt'), 'hello from the folder\n')
  await writeRandomFile(join(folder, 'sub', 'data.bin'), 300 * 1024)
  await writeRandomFile(join(folder, 'filler.bin'), FILLER)
  const sent = await user.ok(['send', folder, '--downloads', '3', '--json'])
  const { link, id } = JSON.parse(sent.stdout) as { link: string; id: string }
  const port = Number(new URL(served.server.url).port)
  proxy = await startDropProxy({ targetPort: port, dropAt: [], direction: 'down' })
  return { folder, id, link: link.replace(served.server.url, proxy.url) }
}

async function downloadCount(id: string): Promise<number> {
  const res = await fetch(`${served.server.url}/api/info/${id}`)
  return ((await res.json()) as { downloadCount: number }).downloadCount
}

it('lists an archive from its directory alone, counting one download', async () => {
  const sent = await sendFolder(served.user, 'listed')
  const listed = await served.user.json<{ entries: Array<{ name: string; size: number }> }>([
    'get',
    sent.link,
    '--list',
  ])
  const files = listed.entries.filter((e) => !e.name.endsWith('/'))
  expect(files.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
    { name: 'listed/filler.bin', size: FILLER },
    { name: 'listed/note.txt', size: 22 },
    { name: 'listed/sub/data.bin', size: 300 * 1024 },
  ])
  expect(proxy!.forwarded).toBeLessThan(FILLER / 4)
  expect(await downloadCount(sent.id)).toBe(1)
})

it('saves only the chosen entries, checked, without fetching the rest', async () => {
  const sent = await sendFolder(served.user, 'chosen')
  const out = await mkdtemp(join(served.work, 'out-'))
  await served.user.ok(['get', sent.link, '-o', out, '--only', 'chosen/note.txt', 'chosen/sub'])
  expect(await readFile(join(out, 'chosen', 'note.txt'), 'utf8')).toBe('hello from the folder\n')
  expect(await sha256File(join(out, 'chosen', 'sub', 'data.bin'))).toBe(
    await sha256File(join(sent.folder, 'sub', 'data.bin')),
  )
  await expect(readFile(join(out, 'chosen', 'filler.bin'))).rejects.toThrow(/ENOENT/)
  expect(proxy!.forwarded).toBeLessThan(FILLER / 4)
  expect(await downloadCount(sent.id)).toBe(1)
})
