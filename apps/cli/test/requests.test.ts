/**
 * File requests from the sender's upload to the requester's inbox, over the WebSocket and over
 * chunked HTTP; and the fallback from a refused WebSocket to chunked HTTP.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { startWebhookReceiver, waitForNotice, webhookSignature } from '@fileshare/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { CliUser } from './cli-runner.js'
import { MiB, sha256File, snapshot, writeRandomFile } from './files.js'
import { startTestServer, type TestServer } from './server.js'

let work: string
const cleanups: Array<() => Promise<void>> = []

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'fileshare-cli-requests-'))
})

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
  await rm(work, { recursive: true, force: true })
})

async function serverWith(
  env: Record<string, string> = {},
): Promise<{ server: TestServer; user: CliUser }> {
  const server = await startTestServer(env)
  const user = await CliUser.create(server.url)
  cleanups.push(
    () => server.close(),
    () => rm(user.home, { recursive: true, force: true }),
  )
  return { server, user }
}

interface CreatedRequest {
  id: string
  uploadLink: string
  inboxLink: string
  closesAt: string
  maxUploads: number
}

interface InboxListing {
  message: string
  open: boolean
  usedUploads: number
  entries: Array<{
    id: string
    kind: string
    with: string | null
    archive: boolean
    files: Array<{ name: string; size: number }>
    downloadsLeft: number
  }>
}

async function senderFiles(name: string): Promise<string> {
  const dir = join(work, name)
  await mkdir(join(dir, 'photos', 'trip'), { recursive: true })
  await writeRandomFile(join(dir, 'photos', 'trip', 'beach.jpg'), 2 * MiB + 3)
  await writeFile(join(dir, 'photos', 'empty.txt'), '')
  await writeFile(join(dir, 'contract.pdf'), 'signed contract')
  return dir
}

describe.each([
  { transport: 'ws', env: {} },
  { transport: 'chunks', env: { FILE_UPLOAD_WS: 'false' } },
])('a file request over $transport', ({ transport, env }) => {
  let user: CliUser
  let sender: CliUser
  let created: CreatedRequest

  beforeAll(async () => {
    const started = await serverWith(env)
    user = started.user
    sender = await CliUser.create(started.server.url)
    cleanups.push(() => rm(sender.home, { recursive: true, force: true }))
    created = await user.json<CreatedRequest>([
      'request',
      '--message',
      'Please send the signed contract and the photos',
      '--accept-note',
      '--uploads',
      '5',
      '--downloads',
      '3',
    ])
  })

  it('labels the upload link and the inbox link', () => {
    expect(created.uploadLink).toMatch(new RegExp(`/r/${created.id}#`))
    expect(created.inboxLink).toMatch(new RegExp(`/i/${created.id}#`))
  })

  it('takes files with a note and a single file, and lists them with decrypted names', async () => {
    const dir = await senderFiles(`sender-${transport}`)
    const withNote = await sender.run([
      'request',
      'send',
      created.uploadLink,
      join(dir, 'photos'),
      '--note',
      'Here they are',
      '--json',
    ])
    expect(withNote.code).toBe(0)
    expect(JSON.parse(withNote.stdout)).toMatchObject({
      transport,
      files: 2,
      message: 'Please send the signed contract and the photos',
    })
    const single = await sender.ok([
      'request',
      'send',
      created.uploadLink,
      join(dir, 'contract.pdf'),
    ])
    expect(single.stderr).toContain(
      'Message from the requester:\n  Please send the signed contract',
    )
    expect(single.stdout).toContain('Sent contract.pdf')

    const listing = await user.json<InboxListing>(['inbox', created.inboxLink])
    expect(listing.message).toBe('Please send the signed contract and the photos')
    // Two senders' uploads: the note is part of the first.
    expect(listing.usedUploads).toBe(2)
    const names = listing.entries.map((e) =>
      e.kind === 'note' ? 'note' : e.files.map((f) => f.name).join(','),
    )
    expect(names).toEqual([
      'photos/,photos/empty.txt,photos/trip/,photos/trip/beach.jpg',
      'note',
      'contract.pdf',
    ])
    expect(listing.entries.every((e) => e.downloadsLeft === 3)).toBe(true)
    const human = await user.ok(['inbox', created.inboxLink])
    expect(human.stdout).toContain('photos/ (2 files)')
    expect(human.stdout).toContain('contract.pdf')
    // The note names the files it came with, in the listing and in the JSON.
    const [photosEntry, noteEntry] = listing.entries
    expect(noteEntry!.with).toBe(photosEntry!.id)
    expect(photosEntry!.with).toBeNull()
    expect(human.stdout).toContain(`(note with ${photosEntry!.id.slice(0, 8)})`)

    const out = join(work, `inbox-all-${transport}`)
    const all = await user.getWholeInbox(created.inboxLink, out)
    expect(all.entries).toHaveLength(3)
    const [photos, note, contract] = listing.entries
    // Each upload's folder is named by its id as the listing shows it.
    const folder = (entry: { id: string }) => join(out, entry.id.slice(0, 8))
    expect(human.stdout).toContain(`${photos!.id.slice(0, 8)}  `)
    expect(await snapshot(join(folder(photos!), 'photos'))).toEqual(
      await snapshot(join(dir, 'photos')),
    )
    expect(await readFile(join(folder(note!), 'note.txt'), 'utf8')).toBe('Here they are')
    expect(await sha256File(join(folder(contract!), 'contract.pdf'))).toBe(
      await sha256File(join(dir, 'contract.pdf')),
    )

    const one = join(work, `inbox-one-${transport}`)
    await user.ok(['inbox', 'get', created.inboxLink, contract!.id.slice(0, 8), '-o', one])
    expect(await readdir(one)).toEqual(['contract.pdf'])
    const after = await user.json<InboxListing>(['inbox', created.inboxLink])
    expect(after.entries.find((e) => e.id === contract!.id)?.downloadsLeft).toBe(1)

    await user.ok(['inbox', 'rm', created.inboxLink, note!.id])
    const removed = await user.json<InboxListing>(['inbox', created.inboxLink])
    expect(removed.entries.map((e) => e.id)).toEqual([photos!.id, contract!.id])
  })

  it('refuses uploads once closed and is gone once deleted', async () => {
    const closed = await user.json(['inbox', 'close', created.inboxLink])
    expect(closed).toEqual({ id: created.id, closed: true })
    const file = join(work, `late-${transport}.txt`)
    await writeFile(file, 'too late')
    const late = await sender.run(['request', 'send', created.uploadLink, file])
    expect(late.code).toBe(2)
    expect(late.stderr).toContain('closed')
    expect((await user.json<InboxListing>(['inbox', created.inboxLink])).open).toBe(false)
    const listing = await user.ok(['inbox', created.inboxLink])
    expect(listing.stdout).toMatch(/^Closed: +by the requester; /m)

    const deleted = await user.ok(['inbox', 'delete', created.inboxLink])
    expect(deleted.stdout).toBe('Deleted the request and every upload in it.\n')
    const gone = await user.run(['inbox', created.inboxLink])
    expect(gone.code).toBe(2)
    expect(gone.stderr).toContain('fileshare: Request not found')
  })
})

describe('a request for one upload that takes a note', () => {
  it('takes one files-only submission, counted as the requester chose it everywhere', async () => {
    const { user } = await serverWith()
    const sender = await CliUser.create(user.server)
    const other = await CliUser.create(user.server)
    cleanups.push(
      () => rm(sender.home, { recursive: true, force: true }),
      () => rm(other.home, { recursive: true, force: true }),
    )
    const created = await user.json<CreatedRequest>([
      'request',
      '--message',
      'one file, a note if you like',
      '--uploads',
      '1',
      '--accept-note',
    ])
    expect((await user.ok(['ls'])).stdout).toMatch(/request +\S+ +\S+ +1 upload /)
    const file = join(work, 'one-upload.txt')
    await writeFile(file, 'the only one')
    await sender.ok(['request', 'send', created.uploadLink, file])

    // The note's slot takes no files, whoever sends them.
    const second = await other.run(['request', 'send', created.uploadLink, file])
    expect(second.code).toBe(2)
    expect(second.stderr).toContain('takes no more uploads')
    const listing = await user.json<InboxListing & { maxUploads: number }>([
      'inbox',
      created.inboxLink,
    ])
    expect(listing).toMatchObject({ usedUploads: 1, maxUploads: 1 })
    expect(listing.entries).toHaveLength(1)
    expect((await user.ok(['inbox', created.inboxLink])).stdout).toContain('1 of 1 upload used')
    expect((await user.ok(['ls'])).stdout).toMatch(/request +\S+ +\S+ +0 uploads /)

    // Closed, the request still holds what arrived: it is not gone.
    await user.ok(['inbox', 'close', created.inboxLink])
    const closed = await user.json<{ entries: Array<{ id: string; state: string }> }>(['ls'])
    expect(closed.entries.find((e) => e.id === created.id)?.state).toBe('closed')
    expect((await user.ok(['ls'])).stdout).toMatch(/request +\S+ +\S+ +closed /)
  })
})

describe('standard input into a request', () => {
  it('sends what - reads as one file named by --name, which the inbox lists and gets', async () => {
    const { user } = await serverWith()
    const sender = await CliUser.create(user.server)
    cleanups.push(() => rm(sender.home, { recursive: true, force: true }))
    const created = await user.json<CreatedRequest>(['request', '--message', 'the log please'])
    const data = Buffer.from('line one\nline two\n'.repeat(50_000))
    await sender.ok(['request', 'send', created.uploadLink, '-', '--name', 'app.log'], {
      input: data,
    })
    const listing = await user.json<InboxListing>(['inbox', created.inboxLink])
    expect(listing.entries).toHaveLength(1)
    expect(listing.entries[0]!.files).toMatchObject([{ name: 'app.log', size: data.length }])
    const out = join(work, 'stdin-inbox-out')
    await user.ok(['inbox', 'get', created.inboxLink, listing.entries[0]!.id, '-o', out])
    expect((await readFile(join(out, 'app.log'))).equals(data)).toBe(true)
  })
})

describe('a password-protected inbox', () => {
  it('opens only with its password', async () => {
    const { user } = await serverWith()
    const created = await user.json<CreatedRequest>(['request', '--message', 'hi', '--password'], {
      env: { FILESHARE_PASSWORD: 'inbox pass' },
    })
    const noTerminal = await user.run(['inbox', created.inboxLink])
    expect(noTerminal.code).toBe(1)
    expect(noTerminal.stderr).toContain('A password is needed')
    const wrong = await user.run(['inbox', created.inboxLink, '--password=wrong'])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('Wrong password')
    const right = await user.json<InboxListing>([
      'inbox',
      created.inboxLink,
      '--password=inbox pass',
    ])
    expect(right).toMatchObject({ message: 'hi', open: true, entries: [] })
  })
})

/**
 * A forwarding proxy in front of the real server that passes every HTTP request but refuses
 * every WebSocket upgrade, as some corporate proxies do.
 */
async function upgradeRefusingProxy(
  target: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const to = new URL(target)
  const proxy: Server = createServer((req, res) => {
    const upstream = httpRequest(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    upstream.on('error', () => res.destroy())
    req.pipe(upstream)
  })
  proxy.on('upgrade', (_req, socket) => {
    socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const { port } = proxy.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        proxy.closeAllConnections()
        proxy.close(() => resolve())
      }),
  }
}

describe('falling back from the WebSocket to chunked HTTP', () => {
  it('uses chunked HTTP at once when the server has FILE_UPLOAD_WS=false', async () => {
    const { user } = await serverWith({ FILE_UPLOAD_WS: 'false' })
    const file = join(work, 'no-ws.bin')
    await writeRandomFile(file, 25 * MiB)
    const sent = await user.json<{ link: string; transport: string }>(['send', file])
    expect(sent.transport).toBe('chunks')
    const out = join(work, 'no-ws-out')
    await user.ok(['get', sent.link, '-o', out])
    expect(await sha256File(join(out, 'no-ws.bin'))).toBe(await sha256File(file))
  })

  it('falls back when the WebSocket upgrade is refused on the way', async () => {
    const { server } = await serverWith()
    const proxy = await upgradeRefusingProxy(server.url)
    cleanups.push(() => proxy.close())
    const user = await CliUser.create(proxy.url)
    cleanups.push(() => rm(user.home, { recursive: true, force: true }))
    const file = join(work, 'refused-ws.bin')
    await writeRandomFile(file, 12 * MiB + 1)
    const sent = await user.json<{ link: string; transport: string }>(['send', file])
    expect(sent.transport).toBe('chunks')
    const out = join(work, 'refused-ws-out')
    await user.ok(['get', sent.link, '-o', out])
    expect(await sha256File(join(out, 'refused-ws.bin'))).toBe(await sha256File(file))
  })
})

describe('inbox notifications', () => {
  it('asks for a signed webhook per arriving upload with --notify-webhook', async () => {
    const hook = await startWebhookReceiver()
    cleanups.push(() => hook.close())
    const { server, user } = await serverWith({
      NOTIFY_ALLOW_PRIVATE: 'true',
      NOTIFY_WEBHOOK_HTTP_HOSTS: '127.0.0.1',
    })
    const created = await user.json<CreatedRequest & { notifyWebhookSecret: string }>([
      'request',
      '--message',
      'Logs please',
      '--notify-webhook',
      hook.url,
    ])
    expect(created.notifyWebhookSecret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const sender = await CliUser.create(server.url)
    cleanups.push(() => rm(sender.home, { recursive: true, force: true }))
    const file = join(work, 'notified.log')
    await writeFile(file, 'log lines')
    await sender.ok(['request', 'send', created.uploadLink, file])
    await waitForNotice(() => hook.calls.length > 0)
    expect(hook.calls).toHaveLength(1)
    const [call] = hook.calls
    expect(call!.headers['x-fileshare-signature']).toBe(
      webhookSignature(created.notifyWebhookSecret, call!.body),
    )
    expect(JSON.parse(call!.body)).toMatchObject({ requestId: created.id, sizeClass: '<1 MB' })
    expect(call!.body).not.toContain('notified.log')
  })
})
