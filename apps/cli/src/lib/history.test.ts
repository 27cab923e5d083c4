/** The history file: where it lives, who may read it, and how entries are found and removed. */
import { appendFile, mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { Credentials } from './credentials.js'
import { History, type FileHistoryEntry, type UnfinishedUpload } from './history.js'

let dir: string

beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), 'fileshare-history-')), 'fileshare')
})

afterEach(async () => {
  await rm(join(dir, '..'), { recursive: true, force: true })
})

function fileEntry(id: string): FileHistoryEntry {
  return {
    kind: 'file',
    id,
    server: 'http://127.0.0.1:3000',
    createdAt: '2025-01-01T00:00:00.000Z',
    link: `http://127.0.0.1:3000/d/${id}#AQBkey`,
    name: 'report.pdf',
    size: 12,
    fileCount: 1,
    expiresAt: '2025-01-02T00:00:00.000Z',
    maxDownloads: 1,
    ownerToken: 'owner-token-secret',
  }
}

const ID_A = '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b'
const ID_B = '1b4e28bb-0000-4000-8000-000000000000'

describe('History', () => {
  it('keeps owner tokens in a file only the user can read, in a folder only the user can open', async () => {
    // Security: other local users must not read owner tokens or share links.
    const history = new History(dir)
    await history.add(fileEntry(ID_A))
    expect((await stat(history.path)).mode & 0o777).toBe(0o600)
    expect((await stat(dir)).mode & 0o777).toBe(0o700)
    expect(await readFile(history.path, 'utf8')).toContain('owner-token-secret')
  })

  it('finds an entry by id, by link and by a unique start of the id', async () => {
    const history = new History(dir)
    await history.add(fileEntry(ID_A))
    await history.add(fileEntry(ID_B))
    expect((await history.find(ID_A))?.id).toBe(ID_A)
    expect((await history.find(`http://127.0.0.1:3000/d/${ID_B}#AQBkey`))?.id).toBe(ID_B)
    expect((await history.find('1b4e28ba'))?.id).toBe(ID_A)
    await expect(history.find('1b4e28b')).rejects.toThrow(/matches 2 entries/)
    expect(await history.find('ffff')).toBeUndefined()
  })

  it('removes one entry and keeps the others', async () => {
    const history = new History(dir)
    await history.add(fileEntry(ID_A))
    await history.add(fileEntry(ID_B))
    expect(await history.remove(ID_A)).toBe(true)
    expect(await history.remove(ID_A)).toBe(false)
    expect((await history.list()).map((e) => e.id)).toEqual([ID_B])
  })

  it('loses no entry when several commands add at once', async () => {
    const history = new History(dir)
    const ids = Array.from({ length: 8 }, (_, i) => `00000000-0000-4000-8000-00000000000${i}`)
    await Promise.all(ids.map((id) => history.add(fileEntry(id))))
    expect((await history.list()).map((e) => e.id).sort()).toEqual(ids)
  })
})

describe('Credentials', () => {
  it('keeps one session token per server in a 0600 file', async () => {
    // Security: a session token is a login; only the user may read it.
    const credentials = new Credentials(dir)
    await credentials.save('https://a.example', 'token-a')
    await credentials.save('https://b.example', 'token-b')
    expect((await stat(credentials.path)).mode & 0o777).toBe(0o600)
    expect((await credentials.get('https://a.example'))?.token).toBe('token-a')
    expect(await credentials.remove('https://a.example')).toBe(true)
    expect(await credentials.get('https://a.example')).toBeUndefined()
    expect((await credentials.get('https://b.example'))?.token).toBe('token-b')
  })
})

describe('unfinished uploads', () => {
  function unfinished(id: string): UnfinishedUpload {
    return {
      kind: 'file',
      id,
      server: 'http://127.0.0.1:3000',
      createdAt: '2025-01-01T00:00:00.000Z',
      ownerToken: 'owner-token-secret',
      state: {
        session: { id, transport: 'chunks', chunkSize: 1024 },
        secret: 'secret-key-material',
        salt: 'salt',
        size: 100,
        ownerToken: 'owner-token-secret',
      },
      sources: ['/tmp/report.pdf'],
      fingerprint: {
        entries: [{ path: '/tmp/report.pdf', size: 84, mtimeMs: 1 }],
        cipherSize: 100,
      },
      options: { expireSec: 3600, maxDownloads: 1, websocket: true },
    }
  }

  // Security: the resume state holds the upload's key, so it lives only in the 0600 file.
  it('keeps resume state beside the entries, in the 0600 file, until dropped', async () => {
    const history = new History(dir)
    await history.keepUnfinished(unfinished(ID_A))
    await history.add(fileEntry(ID_B))
    await history.keepUnfinished(unfinished(ID_B))
    await history.remove(ID_B)
    expect((await history.unfinished()).map((u) => u.id)).toEqual([ID_A, ID_B])
    expect((await history.findUnfinished())?.id).toBe(ID_B)
    expect((await history.findUnfinished('1b4e28ba'))?.id).toBe(ID_A)
    expect(await history.findUnfinished('ffff')).toBeUndefined()
    expect((await stat(history.path)).mode & 0o777).toBe(0o600)
    expect(await readFile(history.path, 'utf8')).toContain('secret-key-material')
    expect(await history.dropUnfinished(ID_A)).toBe(true)
    expect(await history.dropUnfinished(ID_A)).toBe(false)
    expect((await history.unfinished()).map((u) => u.id)).toEqual([ID_B])
    expect(await history.list()).toEqual([])
  })

  it('keeps record tags beside an unfinished upload, synced at their place, until dropped', async () => {
    const history = new History(dir)
    await history.keepUnfinished(unfinished(ID_A))
    expect(await history.sealTags(ID_A)).toBeUndefined()
    const keep = history.sealKeeper(ID_A)
    await keep(0, new Uint8Array(32).fill(1))
    await keep(2, new Uint8Array(16).fill(3))
    const tags = await history.sealTags(ID_A)
    expect([...tags!]).toEqual([...new Uint8Array(32).fill(1), ...new Uint8Array(16).fill(3)])
    const file = join(dir, 'unfinished', `${ID_A}.tags`)
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    // A write cut short within a tag: its record never left, so the partial tag is not read.
    await appendFile(file, new Uint8Array(5))
    expect((await history.sealTags(ID_A))!.length).toBe(48)
    await history.dropUnfinished(ID_A)
    expect(await history.sealTags(ID_A)).toBeUndefined()
    await expect(history.sealKeeper('../history')(0, new Uint8Array(16))).rejects.toThrow(
      /not an upload id/,
    )
  })
})
