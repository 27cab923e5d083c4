/**
 * `fileshare send` and `fileshare get` end to end against the real server: folders, single files,
 * passwords, tampering, hostile archives, and the exit codes and messages of each failure.
 */
import { randomBytes } from 'node:crypto'
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

import { ApiClient, bytesSource, sendFile } from '@fileshare/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { CLI, CLI_NODE, CliUser } from './cli-runner.js'
import { MiB, makeTree, sha256File, snapshot, writeRandomFile } from './files.js'
import { decodeQr } from './qr-image.js'
import { startTestServer, type TestServer } from './server.js'
import { buildZip } from './zip-fixture.js'

const run = promisify(execFile)

let server: TestServer
let user: CliUser
let work: string

beforeAll(async () => {
  server = await startTestServer({ PASSWORD_MAX_ATTEMPTS: '3' })
  user = await CliUser.create(server.url)
  work = await mkdtemp(join(tmpdir(), 'fileshare-cli-transfer-'))
})

afterAll(async () => {
  await server?.close()
  await rm(work, { recursive: true, force: true })
  await rm(user.home, { recursive: true, force: true })
})

interface Sent {
  link: string
  id: string
  expiresAt: string
  maxDownloads: number
  transport: string
}

async function fresh(name: string): Promise<string> {
  const dir = join(work, name)
  await mkdir(dir, { recursive: true })
  return dir
}

/** The stored ciphertext of an upload on the filesystem backend. */
async function blobPath(id: string): Promise<string> {
  const blobs = join(server.dataDir, 'blobs')
  const name = (await readdir(blobs)).find((n) => n.includes(id))
  if (name === undefined) throw new Error(`no blob for ${id}`)
  return join(blobs, name)
}

async function flipByte(path: string, position: number): Promise<void> {
  const handle = await open(path, 'r+')
  try {
    const byte = Buffer.alloc(1)
    await handle.read(byte, 0, 1, position)
    byte[0] = byte[0]! ^ 0x01
    await handle.write(byte, 0, 1, position)
  } finally {
    await handle.close()
  }
}

describe('send and get', () => {
  it('sends a folder tree with a 200 MiB file and gets it back identical, as a standard ZIP', async () => {
    const source = await fresh('tree-src')
    await makeTree(join(source, 'project'), 200 * MiB)
    const sent = await user.json<Sent>(['send', join(source, 'project'), '--downloads', '2'])
    expect(sent.link).toMatch(new RegExp(`^${server.url}/d/${sent.id}#`))
    expect(sent.maxDownloads).toBe(2)
    expect(Date.parse(sent.expiresAt)).toBeGreaterThan(Date.now())
    expect(sent.transport).toBe('ws')

    // The decrypted archive itself, unextracted, must pass the system's unzip.
    const raw = await fresh('tree-zip')
    const saved = await user.json<{ paths: string[] }>([
      'get',
      sent.link,
      '-o',
      raw,
      '--no-extract',
    ])
    expect(saved.paths).toEqual([join(raw, 'project.zip')])
    const { stdout } = await run('unzip', ['-t', saved.paths[0]!])
    expect(stdout).toMatch(/No errors detected/)

    const target = await fresh('tree-out')
    const got = await user.json<{ paths: string[]; archive: boolean }>([
      'get',
      sent.link,
      '-o',
      target,
    ])
    expect(got.archive).toBe(true)
    expect(got.paths).toContain(join(target, 'project', 'ünïcødé 日本語 🚀', 'Ω≈ç√.txt'))
    expect(await snapshot(join(target, 'project'))).toEqual(await snapshot(join(source, 'project')))
    expect(await readdir(target)).toEqual(['project'])
  })

  it('sends a single file as it is and refuses a download past the limit with the server message', async () => {
    const dir = await fresh('single')
    await writeRandomFile(join(dir, 'report.pdf'), 3 * MiB + 17)
    const sent = await user.json<Sent>(['send', join(dir, 'report.pdf')])
    const target = await fresh('single-out')
    const got = await user.ok(['get', sent.link, '-o', target])
    expect(got.stdout.trim()).toBe('report.pdf')
    expect(got.stderr).toContain('1 of 1 download left')
    expect(await sha256File(join(target, 'report.pdf'))).toBe(
      await sha256File(join(dir, 'report.pdf')),
    )

    const again = await user.run(['get', sent.link, '-o', await fresh('single-again')])
    expect(again.code).toBe(2)
    expect(again.stderr).toContain('fileshare: Upload expired or download limit reached')
  })

  it('says an upload the operator took down was removed, with the operator’s reason', async () => {
    const dir = await fresh('removed')
    await writeRandomFile(join(dir, 'invoice.exe'), 4096)
    const sent = await user.json<Sent>(['send', join(dir, 'invoice.exe')])
    await server.service.services.takedown.remove(sent.id, 'Malware')
    const got = await user.run(['get', sent.link, '-o', await fresh('removed-out')])
    expect(got.code).toBe(2)
    expect(got.stderr).toContain('fileshare: Removed by the operator (Malware)')
    const json = await user.run(['get', sent.link, '-o', await fresh('removed-json'), '--json'])
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 410, removed: true })
  })

  it('shows the link of send, note and request as a QR code that reads back as the link', async () => {
    const qrOf = (stderr: string) => stderr.split('\n').filter((line) => /[█▀▄]/.test(line))
    const dir = await fresh('qr')
    await writeFile(join(dir, 'card.txt'), 'scan me')
    const sent = await user.ok(['send', join(dir, 'card.txt'), '--qr'])
    expect(decodeQr(qrOf(sent.stderr))).toBe(sent.stdout.trim())
    const note = await user.ok(['note', 'scan me too', '--qr'])
    expect(decodeQr(qrOf(note.stderr))).toBe(note.stdout.trim())
    // With --json the code still goes to stderr, and stdout stays one JSON object.
    const request = await user.ok(['request', '--message', 'scan', '--qr', '--json'])
    const { uploadLink } = JSON.parse(request.stdout) as { uploadLink: string }
    expect(decodeQr(qrOf(request.stderr))).toBe(uploadLink)
    // Without --qr, nothing of the kind.
    const plain = await user.ok(['note', 'no code'])
    expect(qrOf(plain.stderr)).toEqual([])
  })

  it('does not overwrite an existing file, and counts no download when it refuses', async () => {
    const dir = await fresh('exists')
    await writeFile(join(dir, 'notes.txt'), 'theirs')
    const sent = await user.json<Sent>(['send', join(dir, 'notes.txt'), '--downloads', '2'])
    await writeFile(join(dir, 'notes.txt'), 'mine')
    const refused = await user.run(['get', sent.link, '-o', dir])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('already exists; use --force')
    expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('mine')
    const forced = await user.ok(['get', sent.link, '-o', dir, '--force'])
    expect(forced.stderr).toContain('2 of 2 downloads left')
    expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('theirs')
  })

  it('round-trips a password, refuses a wrong one and shows the lockout', async () => {
    const dir = await fresh('password')
    await writeFile(join(dir, 'secret.txt'), 'top secret')
    const sent = await user.json<Sent & { hasPassword: boolean }>([
      'send',
      join(dir, 'secret.txt'),
      '--password=correct horse',
      '--downloads',
      '5',
    ])
    expect(sent.hasPassword).toBe(true)
    const target = await fresh('password-out')

    // Security: what get reads before the password holds no sealed names to test guesses against.
    const info = (await (await fetch(`${server.url}/api/info/${sent.id}`)).json()) as object
    expect(info).toMatchObject({ hasPassword: true })
    expect(info).not.toHaveProperty('encryptedMeta')
    const noTerminal = await user.run(['get', sent.link, '-o', target])
    expect(noTerminal.code).toBe(1)
    expect(noTerminal.stderr).toContain('A password is needed')
    expect(noTerminal.stderr).not.toContain('secret.txt')

    const fromEnv = await user.ok(['get', sent.link, '-o', target, '--password'], {
      env: { FILESHARE_PASSWORD: 'correct horse' },
    })
    // The names come after the password: the first line has none, the next names the file.
    const lines = fromEnv.stderr.split('\n')
    expect(lines[0]).toMatch(/^Password-protected, /)
    expect(lines[0]).not.toContain('secret.txt')
    expect(lines[1]).toMatch(/^secret\.txt, 10 B, 5 of 5 downloads left/)
    expect(fromEnv.stdout.trim()).toBe('secret.txt')
    expect(await readFile(join(target, 'secret.txt'), 'utf8')).toBe('top secret')

    for (let attempt = 0; attempt < 3; attempt++) {
      const wrong = await user.run(['get', sent.link, '-o', target, '--password=wrong'])
      expect(wrong.code).toBe(2)
      expect(wrong.stderr).toContain('fileshare: Wrong password')
    }
    const locked = await user.run(['get', sent.link, '-o', target, '--password=correct horse'])
    expect(locked.code).toBe(2)
    expect(locked.stderr).toMatch(
      /fileshare: Too many failed attempts, try again later \(retry in \d+ min\)/,
    )
    expect(await readdir(target)).toEqual(['secret.txt'])
  })

  it('detects a flipped byte in the stored file and leaves no finished file behind', async () => {
    // Integrity: tampered ciphertext fails authentication and nothing with the real name remains.
    const dir = await fresh('tamper')
    await writeRandomFile(join(dir, 'data.bin'), 4 * MiB)
    const sent = await user.json<Sent>(['send', join(dir, 'data.bin')])
    await flipByte(await blobPath(sent.id), 2 * MiB + 5)
    const target = await fresh('tamper-out')
    const result = await user.run(['get', sent.link, '-o', target])
    expect(result.code).toBe(3)
    expect(result.stderr).toContain('Decryption failed')
    expect(await readdir(target)).toEqual([])
  })

  it('detects a flipped byte in a stored archive and extracts nothing', async () => {
    const dir = await fresh('tamper-tree')
    await makeTree(join(dir, 'tree'), MiB)
    const sent = await user.json<Sent>(['send', join(dir, 'tree')])
    const blob = await blobPath(sent.id)
    await flipByte(blob, (await stat(blob)).size - 40)
    const target = await fresh('tamper-tree-out')
    const result = await user.run(['get', sent.link, '-o', target])
    expect(result.code).toBe(3)
    expect(await readdir(target)).toEqual([])
  })

  it('refuses an archive whose entries climb out of the target with ../', async () => {
    // Security: a sender cannot make `get` write outside the chosen folder.
    const zip = buildZip([
      { name: 'innocent.txt', data: 'hello' },
      { name: '../escaped.txt', data: 'owned' },
    ])
    const api = new ApiClient({ baseUrl: server.url })
    const sent = await sendFile(api, bytesSource(zip), {
      expireSec: 3600,
      maxDownloads: 1,
      fileCount: 2,
      metadata: {
        archive: true,
        files: [
          { name: 'innocent.txt', type: 'text/plain', size: 5 },
          { name: '../escaped.txt', type: 'text/plain', size: 5 },
        ],
      },
    })
    const parent = await fresh('hostile')
    const target = join(parent, 'target')
    const result = await user.run(['get', sent.link, '-o', target])
    expect(result.code).toBe(3)
    expect(result.stderr).toMatch(/Refused to extract the archive: .*\.\./)
    expect(await readdir(parent)).toEqual(['target'])
    expect(await readdir(target)).toEqual([])
  })

  it('skips symbolic links inside a folder with a warning', async () => {
    const dir = await fresh('links')
    await mkdir(join(dir, 'tree'))
    await writeFile(join(dir, 'tree', 'real.txt'), 'real')
    const { symlink } = await import('node:fs/promises')
    await symlink('/etc/passwd', join(dir, 'tree', 'passwd'))
    const sent = await user.ok(['send', join(dir, 'tree')])
    expect(sent.stderr).toContain(`Skipped ${join(dir, 'tree', 'passwd')}: a symbolic link`)
    const target = await fresh('links-out')
    await user.ok(['get', sent.stdout.trim(), '-o', target])
    expect(await readdir(join(target, 'tree'))).toEqual(['real.txt'])
  })
})

describe('standard input', () => {
  it('sends what - reads as one file named by --name, leaving no temporary file', async () => {
    const data = randomBytes(3 * 1024 * 1024 + 7)
    const tmp = await fresh('stdin-tmp')
    const sent = await user.json<Sent>(['send', '-', '--name', 'shop.sql'], {
      input: data,
      env: { TMPDIR: tmp },
    })
    expect(await readdir(tmp)).toEqual([])
    const out = await fresh('stdin-out')
    const got = await user.json<{ paths: string[] }>(['get', sent.link, '-o', out])
    expect(got.paths).toEqual([join(out, 'shop.sql')])
    expect((await readFile(join(out, 'shop.sql'))).equals(data)).toBe(true)
  })

  it('refuses empty standard input, so a cancelled screenshot tool makes no link', async () => {
    const before = await readdir(join(server.dataDir, 'blobs'))
    const empty = await user.run(['send', '-', '--name', 'shot.png'], { input: '' })
    expect(empty.code).toBe(1)
    expect(empty.stdout).toBe('')
    expect(empty.stderr).toContain('Standard input is empty: nothing to send')
    expect(await readdir(join(server.dataDir, 'blobs'))).toEqual(before)
  })

  it('refuses - with other paths, --name without -, and a password it would have to ask for', async () => {
    const dir = await fresh('stdin-refusals')
    await writeFile(join(dir, 'x.txt'), 'x')
    const mixed = await user.run(['send', '-', join(dir, 'x.txt')], { input: 'data' })
    expect(mixed.code).toBe(1)
    expect(mixed.stderr).toContain('- (standard input) is sent alone')
    const named = await user.run(['send', join(dir, 'x.txt'), '--name', 'y.txt'])
    expect(named.code).toBe(1)
    expect(named.stderr).toContain('--name names what is read from standard input')
    const asked = await user.run(['send', '-', '--password'], { input: 'data' })
    expect(asked.code).toBe(1)
    expect(asked.stderr).toContain('the password cannot be asked for')
    // No short flag: `-n` is --note on `request send`.
    const short = await user.run(['send', '-', '-n', 'x.txt'], { input: 'data' })
    expect(short.code).toBe(1)
    expect(short.stderr).toContain("unknown option '-n'")
    const unsafe = await user.run(['send', '-', '--name', '../x'], { input: 'data' })
    expect(unsafe.code).toBe(1)
    expect(unsafe.stderr).toContain('is not a plain file name')
    // With the password in the environment, - and --password go together.
    const sent = await user.json<Sent & { hasPassword: boolean }>(['send', '-', '--password'], {
      input: 'secret data',
      env: { FILESHARE_PASSWORD: 'from the environment' },
    })
    expect(sent.hasPassword).toBe(true)
  })
})

describe('progress', () => {
  const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`

  it('draws bars on a terminal, plain lines elsewhere, and nothing with --quiet', async () => {
    const dir = await fresh('progress')
    await writeRandomFile(join(dir, 'movie.mkv'), 48 * MiB)
    const piped = await user.ok(['send', join(dir, 'movie.mkv')])
    // No bar where stderr is a pipe: at most a plain line now and then (its timing is the unit
    // test's), with no control characters.
    for (const line of piped.stderr.split('\n').filter((l) => l.startsWith('Uploading'))) {
      expect(line).toMatch(/^Uploading: [\d.]+ [KMG]?i?B of 48 MiB \(\d+%\), .* left$/)
    }
    // eslint-disable-next-line no-control-regex
    expect(piped.stderr).not.toMatch(/[\x00-\x09\x0b-\x1f]/)
    const quiet = await user.ok(['send', join(dir, 'movie.mkv'), '--quiet'])
    expect(quiet.stderr).toBe('')
    expect(quiet.stdout).toMatch(new RegExp(`^${server.url}/d/`))
    const out = await fresh('progress-out')
    const got = await user.ok(['get', quiet.stdout.trim(), '-o', out, '--quiet'])
    expect(got.stderr).toBe('')
    expect(got.stdout.trim()).toBe('movie.mkv')

    // util-linux `script` runs the command on a pseudo-terminal, as a user's shell would.
    const command = [CLI_NODE, CLI, 'send', join(dir, 'movie.mkv')].map(quote).join(' ')
    const { stdout } = await run('script', ['-qec', command, '/dev/null'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: user.home,
        XDG_CONFIG_HOME: join(user.home, '.config'),
        FILESHARE_SERVER: server.url,
      },
    })
    // eslint-disable-next-line no-control-regex
    const text = stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '\n')
    expect(text).toMatch(/Uploading .* 100% \| 48 MiB \/ 48 MiB \| [\d.]+ [KMG]?i?B\/s \| ETA/)
    expect(text).toMatch(new RegExp(`${server.url}/d/`))
  })
})

describe('options and failures', () => {
  it('lists the allowed values of a refused --expire or --downloads', async () => {
    const dir = await fresh('options')
    await writeFile(join(dir, 'x.txt'), 'x')
    const expire = await user.run(['send', join(dir, 'x.txt'), '--expire', '2h'])
    expect(expire.code).toBe(1)
    expect(expire.stderr).toContain(
      '--expire 2h is not allowed by this server; choose one of 5m, 1h, 1d, 7d',
    )
    const downloads = await user.run(['send', join(dir, 'x.txt'), '--downloads', '7'])
    expect(downloads.code).toBe(1)
    expect(downloads.stderr).toContain('choose one of 1, 2, 3, 5, 10, 20, 50, 100')
    const missing = await user.run(['send', join(dir, 'nope.txt')])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('no such file or folder')
  })

  it('refuses a --password value that names a file, which would otherwise not be sent', async () => {
    const dir = await fresh('password-path')
    await writeFile(join(dir, 'a.txt'), 'a')
    await writeFile(join(dir, 'b.txt'), 'b')
    const before = await readdir(join(server.dataDir, 'blobs'))
    const result = await user.run(['send', '--password', join(dir, 'a.txt'), join(dir, 'b.txt')])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      `--password ${join(dir, 'a.txt')} names a file or folder here, which would then not be sent`,
    )
    expect(await readdir(join(server.dataDir, 'blobs'))).toEqual(before)
    // Put after the paths, the option asks (here: reads FILESHARE_PASSWORD) and sends both.
    const sent = await user.ok(
      ['send', join(dir, 'a.txt'), join(dir, 'b.txt'), '--password', '--json'],
      { env: { FILESHARE_PASSWORD: 'from the environment' } },
    )
    expect(JSON.parse(sent.stdout)).toMatchObject({ hasPassword: true })
  })

  it('exits 3 when the server cannot be reached, and says so in JSON too', async () => {
    const dir = await fresh('offline')
    await writeFile(join(dir, 'x.txt'), 'x')
    const result = await user.run([
      'send',
      join(dir, 'x.txt'),
      '--server',
      'http://127.0.0.1:9',
      '--json',
    ])
    expect(result.code).toBe(3)
    expect(JSON.parse(result.stdout)).toMatchObject({ exitCode: 3, code: 'NETWORK' })
    // Port 9 is one fetch refuses to use: the message gives that reason, not a bare `fetch failed`.
    expect(result.stderr).toMatch(/^fileshare: Could not reach the server: bad port/)
    // It names the address, where it came from and the way to name another.
    expect(result.stderr).toContain(
      '(http://127.0.0.1:9, --server); name the server with --server <url> or FILESHARE_SERVER',
    )
  })

  it('exits 1 on a malformed link and points a note link to note get', async () => {
    const bad = await user.run(['get', 'https://example.org/d/not-a-uuid#abc'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('Invalid link')
    const note = await user.run([
      'get',
      `${server.url}/n/1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b#AQB${'A'.repeat(40)}`,
    ])
    expect(note.code).toBe(1)
  })
})
