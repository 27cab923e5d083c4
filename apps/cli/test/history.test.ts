/** `fileshare ls`, `delete` and `ls --forget` over the history this machine keeps. */
import { readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

import { describe, expect, it } from 'vitest'

import { serveUser } from './served-user.js'

const suite = serveUser()

interface Listing {
  entries: Array<{ id: string; kind: string; state: string; left: number | null; link?: string }>
}

describe('history', () => {
  let fileLink: string
  let fileId: string
  let noteId: string
  let requestId: string

  it('records what was sent in a 0600 file in a 0700 folder', async () => {
    const file = join(suite.user.home, 'report.txt')
    await writeFile(file, 'quarterly')
    ;({ link: fileLink, id: fileId } = await suite.user.json<{ link: string; id: string }>([
      'send',
      file,
      '--downloads',
      '3',
    ]))
    ;({ id: noteId } = await suite.user.json<{ id: string }>(['note', 'remember', '--views', '2']))
    ;({ id: requestId } = await suite.user.json<{ id: string }>([
      'request',
      '--message',
      'files please',
    ]))

    // Security: owner tokens and links are secrets; only the user may read them.
    const path = join(suite.user.configDir, 'history.json')
    expect((await stat(path)).mode & 0o777).toBe(0o600)
    expect((await stat(suite.user.configDir)).mode & 0o777).toBe(0o700)
    const stored = await readFile(path, 'utf8')
    expect(stored).toContain('"ownerToken"')
    expect(stored).toContain('"inboxOwnerToken"')
  })

  it('lists downloads, views and uploads left, without printing owner tokens', async () => {
    const out = join(suite.user.home, 'out')
    await suite.user.ok(['get', fileLink, '-o', out])
    const listing = await suite.user.json<Listing>(['ls'])
    expect(listing.entries.map((e) => [e.id, e.kind, e.state, e.left])).toEqual([
      [fileId, 'file', 'available', 2],
      [noteId, 'note', 'available', 2],
      [requestId, 'request', 'available', 10],
    ])
    const raw = await suite.user.ok(['ls', '--json'])
    expect(raw.stdout).not.toContain('wnerToken')
    const human = await suite.user.ok(['ls'])
    expect(human.stdout).toMatch(/^ID\s+KIND\s+CREATED\s+LEFT\s+EXPIRES\s+NAME$/m)
    expect(human.stdout).toContain('2 downloads')
    expect(human.stdout).toContain('report.txt')
  })

  it('deletes with the stored owner token, by link or by the start of the id', async () => {
    await suite.user.ok(['delete', fileLink])
    const gone = await suite.user.run(['get', fileLink, '-o', join(suite.user.home, 'again')])
    expect(gone.code).toBe(2)
    expect(gone.stderr).toContain('fileshare: Upload not found')
    await suite.user.ok(['delete', noteId.slice(0, 8)])
    await suite.user.ok(['delete', requestId])
    expect((await suite.user.json<Listing>(['ls'])).entries).toEqual([])
    const unknown = await suite.user.run(['delete', fileId])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("not in this machine's history")
  })

  it('forgets an entry the server no longer has instead of failing on it', async () => {
    const created = await suite.user.json<{ id: string }>(['note', 'deleted elsewhere'])
    // Deleted behind this entry's back, with the owner token from the history file.
    const stored = JSON.parse(
      await readFile(join(suite.user.configDir, 'history.json'), 'utf8'),
    ) as {
      entries: Array<{ id: string; ownerToken: string; server: string }>
    }
    const entry = stored.entries.find((e) => e.id === created.id)!
    const res = await fetch(`${entry.server}/api/note/${created.id}`, {
      method: 'DELETE',
      headers: { 'X-Owner-Token': entry.ownerToken },
    })
    expect(res.status).toBe(200)
    const result = await suite.user.json<{ deleted: boolean; gone: boolean }>([
      'delete',
      created.id,
    ])
    expect(result).toMatchObject({ id: created.id, deleted: false, gone: true })
    expect((await suite.user.json<Listing>(['ls'])).entries.map((e) => e.id)).not.toContain(
      created.id,
    )
  })

  it('forgets an entry without deleting it on the server', async () => {
    const created = await suite.user.json<{ id: string; link: string }>([
      'note',
      'kept on the server',
    ])
    await suite.user.ok(['ls', '--forget', created.id])
    expect((await suite.user.json<Listing>(['ls'])).entries).toEqual([])
    expect(
      (await suite.user.json<{ viewsLeft: number }>(['note', 'info', created.link])).viewsLeft,
    ).toBe(1)
  })
})
