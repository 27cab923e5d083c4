/**
 * Where `fileshare get` extracts an archive: a folder tree as it is, anything else into a new
 * folder named after the upload, and a hidden top-level name (`.ssh`) only with --force.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

import { describe, expect, it } from 'vitest'

import { serveUser } from './served-user.js'

const suite = serveUser({ workPrefix: 'fileshare-layout-' })

describe('archive layout', () => {
  it('security: files not under one folder go into a new folder, never among existing ones', async () => {
    const source = join(suite.work, 'loose')
    await mkdir(source)
    await writeFile(join(source, 'a.txt'), 'first')
    await writeFile(join(source, 'b.txt'), 'second')
    const sent = await suite.user.json<{ link: string; id: string }>([
      'send',
      join(source, 'a.txt'),
      join(source, 'b.txt'),
      '--downloads',
      '2',
    ])
    const target = join(suite.work, 'loose-out')
    await mkdir(target)
    await writeFile(join(target, 'mine.txt'), 'mine')
    const folder = `fileshare-${sent.id.slice(0, 8)}`

    const got = await suite.user.ok(['get', sent.link, '-o', target])
    expect(got.stderr).toContain('extracted into the new folder')
    expect(got.stderr).toContain(folder)
    expect((await readdir(target)).sort()).toEqual([folder, 'mine.txt'])
    expect(await readFile(join(target, folder, 'a.txt'), 'utf8')).toBe('first')
    expect(await readFile(join(target, folder, 'b.txt'), 'utf8')).toBe('second')

    const again = await suite.user.json<{ folder: string }>(['get', sent.link, '-o', target])
    expect(again.folder).toBe(join(target, `${folder} (2)`))
    expect(await readdir(join(target, `${folder} (2)`))).toEqual(['a.txt', 'b.txt'])
  })

  it('security: a hidden top-level folder is refused before the download is counted, unless --force', async () => {
    const source = join(suite.work, 'hidden')
    await mkdir(join(source, '.ssh'), { recursive: true })
    await writeFile(join(source, '.ssh', 'authorized_keys'), 'ssh-ed25519 AAAA sender\n')
    const sent = await suite.user.json<{ link: string }>(['send', join(source, '.ssh')])
    const home = join(suite.work, 'victim-home')
    await mkdir(home)

    const refused = await suite.user.run(['get', sent.link, '-o', home])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(
      'The archive holds ".ssh" at its top level, a hidden name; use --force to extract it',
    )
    expect(await readdir(home)).toEqual([])

    await suite.user.ok(['get', sent.link, '-o', home, '--force'])
    expect(await readFile(join(home, '.ssh', 'authorized_keys'), 'utf8')).toContain('sender')
  })
})
