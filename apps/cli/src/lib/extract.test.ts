/** Extraction of downloaded archives: what a hostile archive may not do, and what a good one keeps. */
import {
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { createZipStream, type ArchiveEntry } from '@fileshare/protocol'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { buildZip, type FixtureEntry } from '../../test/zip-fixture.js'
import { CliError, EXIT, UnsafeArchiveError } from './errors.js'
import { extractArchive } from './extract.js'

let work: string
let target: string

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'fileshare-extract-'))
  target = join(work, 'target')
  await mkdir(target)
})

afterEach(async () => {
  await rm(work, { recursive: true, force: true })
})

async function zipOf(entries: readonly FixtureEntry[]): Promise<string> {
  const path = join(work, 'archive.zip')
  await writeFile(path, buildZip(entries))
  return path
}

async function listAll(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).sort()
}

/** Extracting must fail as unsafe, and leave both the target and its parent untouched. */
async function expectRefused(entries: readonly FixtureEntry[], message: RegExp): Promise<void> {
  const zip = await zipOf(entries)
  const before = await listAll(work)
  const error = await extractArchive(zip, target, { force: false }).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(UnsafeArchiveError)
  expect((error as Error).message).toMatch(message)
  expect(await listAll(work)).toEqual(before)
}

describe('extractArchive refuses a hostile archive whole, before writing anything', () => {
  const harmless: FixtureEntry = { name: 'readme.txt', data: 'first entry, harmless' }

  it('an entry with a ../ segment cannot escape the target', async () => {
    await expectRefused([harmless, { name: '../escaped.txt', data: 'x' }], /relative path|\.\./)
  })

  it('a ../ segment in the middle cannot escape the target', async () => {
    await expectRefused(
      [harmless, { name: 'a/../../escaped.txt', data: 'x' }],
      /relative path|\.\./,
    )
  })

  it('an absolute path cannot write outside the target', async () => {
    await expectRefused([harmless, { name: '/tmp/escaped.txt', data: 'x' }], /absolute/)
  })

  it('a backslash path cannot be read as a Windows path escape', async () => {
    await expectRefused([harmless, { name: '..\\escaped.txt', data: 'x' }], /characters|backslash/)
  })

  it('a symbolic link entry is not created', async () => {
    await expectRefused(
      [harmless, { name: 'link', data: '/etc/passwd', unixMode: 0o120777 }],
      /symbolic link/,
    )
  })

  it('a character device entry is not created', async () => {
    await expectRefused([harmless, { name: 'null', unixMode: 0o020666 }], /character device/)
  })

  it('a block device entry is not created', async () => {
    await expectRefused([harmless, { name: 'disk', unixMode: 0o060660 }], /block device/)
  })

  it('a FIFO entry is not created', async () => {
    await expectRefused([harmless, { name: 'pipe', unixMode: 0o010644 }], /FIFO/)
  })

  it('a name given twice cannot overwrite an earlier entry', async () => {
    await expectRefused([harmless, { name: 'readme.txt', data: 'second' }], /twice/)
  })

  it('a file cannot also be the folder of another entry', async () => {
    await expectRefused(
      [
        { name: 'a', data: 'file' },
        { name: 'a/b', data: 'x' },
      ],
      /a file/,
    )
  })

  it('a control character cannot reach the terminal through a name', async () => {
    await expectRefused([harmless, { name: 'bad\u001b[2Jname', data: 'x' }], /control character/)
  })

  it('a folder entry that holds data is refused', async () => {
    await expectRefused([harmless, { name: 'dir/', data: 'x', unixMode: 0o040755 }], /holds data/)
  })
})

describe('extractArchive on a damaged archive', () => {
  /** Extracting must fail with exit 3 and leave the target as it was. */
  async function expectDamaged(
    entries: readonly FixtureEntry[],
    message: RegExp,
    force = false,
  ): Promise<void> {
    const zip = await zipOf(entries)
    const before = await listAll(target)
    const error = await extractArchive(zip, target, { force }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CliError)
    expect((error as CliError).exitCode).toBe(EXIT.FAILED)
    expect((error as Error).message).toMatch(message)
    expect(await listAll(target)).toEqual(before)
  }

  it('an entry whose bytes do not match its CRC-32 leaves nothing, not even the entries before it', async () => {
    // Integrity: a file is only placed once every file of the archive is complete and checked.
    await expectDamaged(
      [
        { name: 'first.txt', data: 'complete and fine' },
        { name: 'deep/er/second.txt', data: 'changed after zipping', crc: 0x12345678 },
      ],
      /entry "deep\/er\/second.txt" does not match its CRC-32/,
    )
  })

  it('a broken deflate stream leaves nothing and keeps a file that force would replace', async () => {
    await writeFile(join(target, 'first.txt'), 'mine')
    await expectDamaged(
      [
        { name: 'first.txt', data: 'theirs', deflate: true },
        {
          name: 'sub/second.txt',
          data: 'x'.repeat(100),
          deflated: Buffer.from([0xff, 0xff, 0xff]),
        },
      ],
      /entry "sub\/second.txt" cannot be read/,
      true,
    )
    expect(await readFile(join(target, 'first.txt'), 'utf8')).toBe('mine')
  })

  it('removes the target folder it created itself when the archive is damaged', async () => {
    const fresh = join(work, 'fresh', 'inner')
    const zip = await zipOf([
      { name: 'a/ok.txt', data: 'fine' },
      { name: 'a/bad.txt', data: 'bad', crc: 1 },
    ])
    await expect(extractArchive(zip, fresh, { force: false })).rejects.toThrow(/CRC-32/)
    expect(await readdir(work)).toEqual(['archive.zip', 'target'])
  })

  it('extracts deflated entries and checks them', async () => {
    const zip = await zipOf([
      { name: 'text.txt', data: 'deflated '.repeat(1000), deflate: true },
      { name: 'empty.txt', data: '', deflate: true },
    ])
    await extractArchive(zip, target, { force: false })
    expect(await readFile(join(target, 'text.txt'), 'utf8')).toBe('deflated '.repeat(1000))
    expect(await readFile(join(target, 'empty.txt'), 'utf8')).toBe('')
  })
})

describe('extractArchive on the target folder', () => {
  it('does not write through a symbolic link already in the target', async () => {
    // Security: an archive entry below an existing link must not land where the link points.
    const outside = join(work, 'outside')
    await mkdir(outside)
    await symlink(outside, join(target, 'sub'))
    const zip = await zipOf([{ name: 'sub/planted.txt', data: 'x' }])
    await expect(extractArchive(zip, target, { force: false })).rejects.toThrow(/symbolic link/)
    expect(await readdir(outside)).toEqual([])
  })

  it('keeps an existing file without force and replaces it with force', async () => {
    await writeFile(join(target, 'readme.txt'), 'mine')
    const zip = await zipOf([{ name: 'readme.txt', data: 'theirs' }])
    await expect(extractArchive(zip, target, { force: false })).rejects.toThrow(/already exists/)
    expect(await readFile(join(target, 'readme.txt'), 'utf8')).toBe('mine')
    await extractArchive(zip, target, { force: true })
    expect(await readFile(join(target, 'readme.txt'), 'utf8')).toBe('theirs')
  })

  it('extracts an archive of the protocol writer with folders, empty files, modes and times', async () => {
    const mtime = new Date('2021-03-04T05:06:08Z')
    const text = new TextEncoder().encode('héllo')
    const entries: ArchiveEntry[] = [
      { path: 'top/', size: 0, mode: 0o040755, mtime },
      { path: 'top/empty/', size: 0, mode: 0o040700, mtime },
      {
        path: 'top/empty.txt',
        size: 0,
        mode: 0o100600,
        mtime,
        open: () => streamOf(new Uint8Array()),
      },
      { path: 'top/run.sh', size: text.length, mode: 0o100755, mtime, open: () => streamOf(text) },
      { path: 'top/日本語.txt', size: text.length, mtime, open: () => streamOf(text) },
    ]
    const zip = join(work, 'good.zip')
    await writeFile(zip, Buffer.from(await new Response(createZipStream(entries)).arrayBuffer()))

    const { folder, entries: written } = await extractArchive(zip, target, { force: false })
    expect(folder).toBeNull()
    expect(written.map((e) => e.path.slice(target.length + 1))).toEqual([
      'top',
      'top/empty',
      'top/empty.txt',
      'top/run.sh',
      'top/日本語.txt',
    ])
    expect(await readFile(join(target, 'top/run.sh'), 'utf8')).toBe('héllo')
    expect((await stat(join(target, 'top/empty.txt'))).size).toBe(0)
    expect((await stat(join(target, 'top/empty'))).isDirectory()).toBe(true)
    const umask = process.umask()
    expect((await stat(join(target, 'top/run.sh'))).mode & 0o777).toBe(0o755 & ~umask)
    expect((await stat(join(target, 'top/empty.txt'))).mode & 0o777).toBe(0o600 & ~umask)
    expect((await stat(join(target, 'top/empty'))).mode & 0o777).toBe(0o700 & ~umask)
    expect((await stat(join(target, 'top/run.sh'))).mtime.getTime()).toBe(mtime.getTime())
    expect((await stat(join(target, 'top'))).mtime.getTime()).toBe(mtime.getTime())
    // No temporary file is left behind.
    expect((await listAll(target)).some((name) => name.includes('fileshare-part'))).toBe(false)
    expect((await lstat(join(target, 'top'))).isSymbolicLink()).toBe(false)
  })
})

describe('extractArchive chooses where an archive goes', () => {
  const scattered: FixtureEntry[] = [
    { name: 'notes.txt', data: 'a' },
    { name: 'photos/', unixMode: 0o040755 },
    { name: 'photos/cat.jpg', data: 'b' },
  ]

  it('security: entries not under one top-level folder go into a new folder named after the archive', async () => {
    const zip = await zipOf(scattered)
    const first = await extractArchive(zip, target, {
      force: false,
      folderName: 'fileshare-1b4e28ba',
    })
    expect(first.folder).toBe(join(target, 'fileshare-1b4e28ba'))
    expect(await listAll(target)).toEqual([
      'fileshare-1b4e28ba',
      'fileshare-1b4e28ba/notes.txt',
      'fileshare-1b4e28ba/photos',
      'fileshare-1b4e28ba/photos/cat.jpg',
    ])
    // A name already taken is never reused: the next one is "name (2)".
    const second = await extractArchive(zip, target, {
      force: false,
      folderName: 'fileshare-1b4e28ba',
    })
    expect(second.folder).toBe(join(target, 'fileshare-1b4e28ba (2)'))
    expect(await readFile(join(target, 'fileshare-1b4e28ba (2)', 'notes.txt'), 'utf8')).toBe('a')
  })

  it('extracts entries under one top-level folder into the target as they are', async () => {
    const zip = await zipOf([
      { name: 'photos/', unixMode: 0o040755 },
      { name: 'photos/cat.jpg', data: 'b' },
    ])
    const result = await extractArchive(zip, target, { force: false, folderName: 'unused' })
    expect(result.folder).toBeNull()
    expect(await listAll(target)).toEqual(['photos', 'photos/cat.jpg'])
  })

  it('security: a hidden top-level name is refused without force, and nothing is written', async () => {
    // In a home folder without ~/.ssh, this would plant a key that logs the sender in.
    const zip = await zipOf([{ name: '.ssh/authorized_keys', data: 'ssh-ed25519 AAAA sender' }])
    const before = await listAll(work)
    const error = await extractArchive(zip, target, { force: false, folderName: 'x' }).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(CliError)
    expect((error as CliError).exitCode).toBe(EXIT.USAGE)
    expect((error as Error).message).toBe(
      'The archive holds ".ssh" at its top level, a hidden name; use --force to extract it',
    )
    expect(await listAll(work)).toEqual(before)
    await extractArchive(zip, target, { force: true, folderName: 'x' })
    expect(await readFile(join(target, '.ssh/authorized_keys'), 'utf8')).toContain('sender')
  })

  it('removes the new folder again when the archive turns out damaged', async () => {
    const zip = await zipOf([...scattered, { name: 'bad.txt', data: 'c', crc: 1 }])
    await expect(
      extractArchive(zip, target, { force: false, folderName: 'fileshare-1b4e28ba' }),
    ).rejects.toThrow(/CRC-32/)
    expect(await listAll(target)).toEqual([])
  })
})

function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      if (bytes.length > 0) controller.enqueue(bytes)
      controller.close()
    },
  })
}
