/**
 * Resumed uploads end to end: `fileshare send` through a proxy that cuts the connection, on the
 * WebSocket and on chunks; `send --resume` after the command was killed (of a password-protected
 * upload too, whose password it asks again); and the refusals of a resume whose sources changed,
 * even in place with size and time kept, or whose session the server no longer has.
 */
import type { ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { dropsEvery, startDropProxy, type DropProxy } from '@fileshare/testing/drop-proxy'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import { CliUser } from './cli-runner.js'
import { MiB, sha256File, writeRandomFile } from './files.js'
import { startTestServer, type TestServer } from './server.js'

let server: TestServer
let work: string
let proxy: DropProxy | undefined

beforeAll(async () => {
  // Paced, so that a test can interrupt an upload while it is under way.
  server = await startTestServer({ FILE_UPLOAD_SPEED_LIMIT: String(24 * MiB) })
  work = await mkdtemp(join(tmpdir(), 'fileshare-cli-resume-'))
})

afterEach(async () => {
  await proxy?.close()
  proxy = undefined
})

afterAll(async () => {
  await server?.close()
  await rm(work, { recursive: true, force: true })
})

function portOf(running: TestServer): number {
  return Number(new URL(running.url).port)
}

async function fresh(name: string): Promise<string> {
  const dir = join(work, name)
  await mkdir(dir, { recursive: true })
  return dir
}

/** Sends, downloads and compares: the round trip of one resumed upload. */
async function sendAndGet(user: CliUser, path: string, args: string[]): Promise<string> {
  const sent = await user.ok(['send', path, '--json', ...args])
  const { link } = JSON.parse(sent.stdout) as { link: string }
  // The link names the real server: the download does not go through the proxy.
  const out = await fresh(`out-${Date.now()}`)
  await user.ok(['get', link.replace(proxy!.url, server.url), '-o', out])
  const name = path.split('/').pop()!
  expect(await sha256File(join(out, name))).toBe(await sha256File(path))
  await rm(out, { recursive: true, force: true })
  return sent.stderr
}

/** The ids of the unfinished uploads in a user's history. */
async function unfinishedIds(user: CliUser): Promise<string[]> {
  const text = await readFile(join(user.configDir, 'history.json'), 'utf8').catch(() => '{}')
  const history = JSON.parse(text) as { unfinished?: { id: string }[] }
  return (history.unfinished ?? []).map((u) => u.id)
}

/** Runs `argv` and kills it with SIGKILL once its resume state is in the history. */
async function killedRun(user: CliUser, argv: string[]): Promise<string> {
  let child: ChildProcess | undefined
  let ended = false
  const run = user.run(argv, { onSpawn: (c) => (child = c) })
  void run.then(() => (ended = true))
  for (;;) {
    const [id] = await unfinishedIds(user)
    if (id) {
      // Some bytes in, most still to send.
      await new Promise((resolve) => setTimeout(resolve, 800))
      child!.kill('SIGKILL')
      const result = await run
      expect(result.code).not.toBe(0)
      return id
    }
    if (ended) throw new Error(`${argv[0]} ended before it was killed: ${(await run).stderr}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A user whose send of a new file of `size` bytes was killed mid-upload. */
async function killedFileSend(name: string, size: number) {
  const dir = await fresh(name)
  const path = join(dir, `${name}.bin`)
  await writeRandomFile(path, size)
  const user = await CliUser.create(server.url)
  const id = await killedRun(user, ['send', path])
  return { user, path, id }
}

describe('a send through a connection that drops', () => {
  it('completes a 1 GiB upload over the WebSocket after three drops, byte-exact', async () => {
    const fast = await startTestServer()
    try {
      const dir = await fresh('ws-gib')
      const path = join(dir, 'disk.img')
      await writeRandomFile(path, 1024 * MiB)
      proxy = await startDropProxy({ targetPort: portOf(fast), dropAt: dropsEvery(256 * MiB, 3) })
      const user = await CliUser.create(proxy.url)
      const sent = await user.ok(['send', path, '--json'])
      expect(proxy.drops).toBe(3)
      expect(
        sent.stderr.match(/Connection lost; resumed at [\d.]+ (?:[KMG]i)?B \(attempt \d\)/g),
      ).toHaveLength(3)
      const { link, transport } = JSON.parse(sent.stdout) as { link: string; transport: string }
      expect(transport).toBe('ws')
      const out = await fresh('ws-gib-out')
      await user.ok(['get', link.replace(proxy.url, fast.url), '-o', out])
      expect(await sha256File(join(out, 'disk.img'))).toBe(await sha256File(path))
      // Nothing is left to resume.
      expect(await unfinishedIds(user)).toEqual([])
      await rm(dir, { recursive: true, force: true })
      await rm(out, { recursive: true, force: true })
    } finally {
      await fast.close()
    }
  }, 600_000)

  it('completes a chunked upload after three drops with the link away for seconds', async () => {
    const dir = await fresh('chunks')
    const path = join(dir, 'data.bin')
    await writeRandomFile(path, 96 * MiB)
    // Down longer than a chunk's own retries: only a resume from the status gets through.
    proxy = await startDropProxy({
      targetPort: portOf(server),
      dropAt: dropsEvery(24 * MiB, 3),
      downMs: 5000,
    })
    const user = await CliUser.create(proxy.url)
    const stderr = await sendAndGet(user, path, ['--no-websocket'])
    expect(proxy.drops).toBe(3)
    expect(stderr).toMatch(/Connection lost; resumed at [\d.]+ (?:[KMG]i)?B \(attempt 1\)/)
  }, 300_000)
})

interface OpenedForTest {
  owner: CliUser
  created: { uploadLink: string; inboxLink: string }
  path: string
}

/** A file request of a new owner, and a random file of `size` bytes to send into it. */
async function requestWithFile(name: string, size: number, extra: string[] = []) {
  const owner = await CliUser.create(server.url)
  const created = await owner.json<OpenedForTest['created']>(['request', '-m', name, ...extra])
  const path = join(await fresh(name), `${name}.bin`)
  await writeRandomFile(path, size)
  return { owner, created, path } satisfies OpenedForTest
}

describe('a request send through a connection that drops', () => {
  it('completes after two drops on each transport, and the inbox opens it', async () => {
    const { owner, created, path } = await requestWithFile('recording', 40 * MiB)
    for (const args of [[], ['--no-websocket']]) {
      proxy = await startDropProxy({
        targetPort: portOf(server),
        dropAt: dropsEvery(12 * MiB, 2),
        downMs: 4000,
      })
      const sender = await CliUser.create(server.url)
      const link = created.uploadLink.replace(server.url, proxy.url)
      const sent = await sender.ok(['request', 'send', link, path, ...args])
      expect(proxy.drops).toBe(2)
      expect(sent.stderr).toMatch(/Connection lost; resumed at/)
      await proxy.close()
      proxy = undefined
    }
    const out = await fresh('request-drops-out')
    const all = await owner.getWholeInbox(created.inboxLink, out)
    expect(all.entries).toHaveLength(2)
    for (const entry of all.entries) {
      expect(await sha256File(join(out, entry.id.slice(0, 8), 'recording.bin'))).toBe(
        await sha256File(path),
      )
    }
  }, 300_000)
})

describe('fileshare send --resume', () => {
  it('completes an upload whose command was killed, and prints the link', async () => {
    const { user, path, id } = await killedFileSend('killed', 64 * MiB + 5)
    const resumed = await user.ok(['send', '--resume', '--json'])
    const { link, id: sentId } = JSON.parse(resumed.stdout) as { link: string; id: string }
    expect(sentId).toBe(id)
    expect(resumed.stderr).toMatch(new RegExp(`Resuming upload ${id} at [\\d.]+ (?:[KMG]i)?B`))
    const out = await fresh('killed-out')
    await user.ok(['get', link, '-o', out])
    expect(await sha256File(join(out, 'killed.bin'))).toBe(await sha256File(path))
    expect(
      (await user.json<{ entries: { id: string }[] }>(['ls'])).entries.map((e) => e.id),
    ).toContain(id)
  }, 300_000)

  it('continues a killed folder upload with `fileshare resume`', async () => {
    const dir = await fresh('killed-folder')
    await mkdir(join(dir, 'album', 'sub'), { recursive: true })
    await writeRandomFile(join(dir, 'album', 'one.bin'), 40 * MiB)
    await writeRandomFile(join(dir, 'album', 'sub', 'two.bin'), 20 * MiB + 3)
    await writeFile(join(dir, 'album', 'note.txt'), 'hello')
    const user = await CliUser.create(server.url)
    const id = await killedRun(user, ['send', join(dir, 'album'), '--no-websocket'])
    const resumed = await user.ok(['resume', id.slice(0, 8), '--json'])
    const { link } = JSON.parse(resumed.stdout) as { link: string }
    const out = await fresh('killed-folder-out')
    await user.ok(['get', link, '-o', out])
    expect(await sha256File(join(out, 'album', 'sub', 'two.bin'))).toBe(
      await sha256File(join(dir, 'album', 'sub', 'two.bin')),
    )
  }, 300_000)

  it('continues a killed upload into a request, and sends its note after', async () => {
    const { owner, created, path } = await requestWithFile('scans', 48 * MiB, ['--accept-note'])
    const sender = await CliUser.create(server.url)
    const argv = ['request', 'send', created.uploadLink, path, '--note', 'all pages']
    await killedRun(sender, argv)
    const resumed = await sender.ok(['send', '--resume'])
    expect(resumed.stdout).toContain('Sent scans.bin')
    expect(resumed.stdout).toContain('with a note')
    const out = await fresh('killed-request-out')
    const all = await owner.getWholeInbox(created.inboxLink, out)
    const files = all.entries.find((e) => e.paths.some((p) => p.endsWith('scans.bin')))!
    expect(await sha256File(join(out, files.id.slice(0, 8), 'scans.bin'))).toBe(
      await sha256File(path),
    )
  }, 300_000)

  // Security: a source changed since the upload began is never encrypted again under the
  // nonces already used.
  it('refuses to resume when a source changed', async () => {
    const { user, path } = await killedFileSend('changed', 48 * MiB)
    await writeFile(path, 'appended', { flag: 'a' })
    const refused = await user.run(['send', '--resume'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(`${path} changed since the upload started; start a new upload`)
  }, 120_000)

  // Security: size and time are no proof. A source rewritten in place with both kept is never
  // sealed again under the nonces already used: the record tags kept with the upload refuse it.
  it('refuses a source overwritten in place with its size and time kept', async () => {
    const { user, path, id } = await killedFileSend('overwritten', 48 * MiB)
    expect((await stat(join(user.configDir, 'unfinished', `${id}.tags`))).mode & 0o777).toBe(0o600)
    const { atime, mtime } = await stat(path)
    await writeRandomFile(path, 48 * MiB)
    await utimes(path, atime, mtime)
    const refused = await user.run(['send', '--resume'])
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain(
      'overwritten.bin changed while it was being sent; send it again',
    )
    // The upload ended: nothing of it is kept to resume.
    expect(await unfinishedIds(user)).toEqual([])
    await expect(stat(join(user.configDir, 'unfinished', `${id}.tags`))).rejects.toThrow()
  }, 120_000)

  it('sends afresh under a new secret when no record tags were kept', async () => {
    const { user, path, id } = await killedFileSend('untagged', 48 * MiB)
    await rm(join(user.configDir, 'unfinished', `${id}.tags`))
    const resumed = await user.ok(['send', '--resume', '--json'])
    expect(resumed.stderr).toContain('sending them again in full')
    const { link, id: sentId } = JSON.parse(resumed.stdout) as { link: string; id: string }
    expect(sentId).not.toBe(id)
    const out = await fresh('untagged-out')
    await user.ok(['get', link, '-o', out])
    expect(await sha256File(join(out, 'untagged.bin'))).toBe(await sha256File(path))
    expect(await unfinishedIds(user)).toEqual([])
  }, 120_000)

  it('keeps neither secret nor owner token of a password-protected upload, and asks again', async () => {
    const dir = await fresh('locked')
    const path = join(dir, 'locked.bin')
    await writeRandomFile(path, 48 * MiB)
    const user = await CliUser.create(server.url)
    const id = await killedRun(user, ['send', path, '--password=tiger lily'])
    const history = await readFile(join(user.configDir, 'history.json'), 'utf8')
    const [kept] = (JSON.parse(history) as { unfinished: Record<string, unknown>[] }).unfinished
    expect(kept).not.toHaveProperty('ownerToken')
    expect(Object.keys(kept!.state as object).sort()).toEqual([
      'passwordLock',
      'salt',
      'session',
      'size',
    ])

    const wrong = await user.run(['send', '--resume', '--password=tiger'])
    expect(wrong.code).not.toBe(0)
    expect(wrong.stderr).toContain('Wrong password')
    expect(await unfinishedIds(user)).toEqual([id])

    const resumed = await user.ok(['resume', '--json'], {
      env: { FILESHARE_PASSWORD: 'tiger lily' },
    })
    const { link, id: sentId } = JSON.parse(resumed.stdout) as { link: string; id: string }
    expect(sentId).toBe(id)
    const out = await fresh('locked-out')
    await user.ok(['get', link, '-o', out, '--password=tiger lily'])
    expect(await sha256File(join(out, 'locked.bin'))).toBe(await sha256File(path))
  }, 180_000)

  it('keeps the unfinished upload when --retries is not a duration', async () => {
    const { user, id } = await killedFileSend('bad-retries', 48 * MiB)
    const refused = await user.run(['send', '--resume', '--retries', 'soon'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('--retries soon is not a duration')
    expect(await unfinishedIds(user)).toEqual([id])
  }, 120_000)

  it('says clearly when the server no longer has the upload, and forgets it', async () => {
    const { user, id } = await killedFileSend('forgotten', 48 * MiB)
    // The owner cancels it from elsewhere (or it idled out): the server drops the session.
    await fetch(`${server.url}/api/upload/${id}`, {
      method: 'DELETE',
      headers: {
        'X-Owner-Token': JSON.parse(await readFile(join(user.configDir, 'history.json'), 'utf8'))
          .unfinished[0].ownerToken,
      },
    })
    const refused = await user.run(['send', '--resume'])
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain('The server no longer has this unfinished upload')
    const again = await user.run(['send', '--resume'])
    expect(again.stderr).toContain('No unfinished upload on this machine to resume')
  }, 120_000)

  it('cancels a password-protected unfinished upload with its password', async () => {
    const dir = await fresh('locked-cancel')
    const path = join(dir, 'locked-cancel.bin')
    await writeRandomFile(path, 48 * MiB)
    const user = await CliUser.create(server.url)
    const id = await killedRun(user, ['send', path, '--password=tiger lily'])
    const cancelled = await user.ok(['delete', id], { env: { FILESHARE_PASSWORD: 'tiger lily' } })
    expect(cancelled.stdout).toContain(`Cancelled the unfinished upload ${id}.`)
    expect(await unfinishedIds(user)).toEqual([])
  }, 120_000)

  it('cancels an unfinished upload with fileshare delete', async () => {
    const { user, id } = await killedFileSend('cancel', 48 * MiB)
    const cancelled = await user.ok(['delete', id])
    expect(cancelled.stdout).toMatch(/Cancelled the unfinished upload|already gone/)
    const none = await user.run(['send', '--resume'])
    expect(none.stderr).toContain('No unfinished upload on this machine to resume')
  }, 120_000)
})
