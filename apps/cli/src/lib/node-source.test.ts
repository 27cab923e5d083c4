/** What `send` makes of paths: a single file as it is, anything else as a streamed ZIP archive. */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import {
  ciphertextFrom,
  SealedRecords,
  deriveUploadKeys,
  encryptedSize,
  fingerprintChange,
  RECORD_SIZE,
  RECORD_TAG_SIZE,
} from '@fileshare/protocol'

import { checkPayloadFits, localUtcOffsetMinutes, preparePayload } from './node-source.js'

const run = promisify(execFile)
let dir: string
let warnings: string[]

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fileshare-source-'))
  warnings = []
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const warn = (line: string) => void warnings.push(line)

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  return Buffer.from(await new Response(stream).arrayBuffer())
}

describe('preparePayload', () => {
  it('sends one file as it is', async () => {
    await writeFile(join(dir, 'report.pdf'), 'pdf bytes')
    const payload = await preparePayload([join(dir, 'report.pdf')], warn)
    expect(payload.metadata).toEqual({
      archive: false,
      files: [{ name: 'report.pdf', type: 'application/pdf', size: 9 }],
    })
    expect(payload.fileCount).toBe(1)
    expect((await bytesOf(payload.source.stream())).toString()).toBe('pdf bytes')
  })

  it('packs a folder and a file into a ZIP of exactly the declared size that unzip accepts', async () => {
    await mkdir(join(dir, 'folder', 'empty'), { recursive: true })
    await writeFile(join(dir, 'folder', 'a.txt'), 'aaa')
    await writeFile(join(dir, 'folder', 'zero'), '')
    await writeFile(join(dir, 'b.md'), '# b')
    await symlink('/etc/hostname', join(dir, 'folder', 'link'))
    const payload = await preparePayload([join(dir, 'folder'), join(dir, 'b.md')], warn)
    expect(payload.metadata.archive).toBe(true)
    expect(payload.metadata.files.map((f) => f.name)).toEqual([
      'folder/',
      'folder/a.txt',
      'folder/empty/',
      'folder/zero',
      'b.md',
    ])
    expect(payload.files).toBe(3)
    expect(payload.fileCount).toBe(3)
    expect(payload.skipped).toEqual([join(dir, 'folder', 'link')])
    expect(warnings).toEqual([`Skipped ${join(dir, 'folder', 'link')}: a symbolic link`])
    const zip = await bytesOf(payload.source.stream())
    expect(zip.length).toBe(payload.source.size)
    await writeFile(join(dir, 'out.zip'), zip)
    const { stdout } = await run('unzip', ['-Z1', join(dir, 'out.zip')])
    expect(stdout.trim().split('\n')).toEqual([
      'folder/',
      'folder/a.txt',
      'folder/empty/',
      'folder/zero',
      'b.md',
    ])
  })

  it('marks a folder with a single file as an archive (file count at least 2)', async () => {
    await mkdir(join(dir, 'only'))
    await writeFile(join(dir, 'only', 'one.txt'), '1')
    const payload = await preparePayload([join(dir, 'only')], warn)
    expect(payload.metadata.archive).toBe(true)
    expect(payload.fileCount).toBe(2)
  })

  it('refuses two paths with the same name and paths that do not exist', async () => {
    await mkdir(join(dir, 'x', 'same'), { recursive: true })
    await mkdir(join(dir, 'y', 'same'), { recursive: true })
    await expect(
      preparePayload([join(dir, 'x', 'same'), join(dir, 'y', 'same')], warn),
    ).rejects.toThrow(/both named "same"/)
    await expect(preparePayload([join(dir, 'missing')], warn)).rejects.toThrow(/no such file/)
  })

  it('lists only the top-level paths when every name would not fit in the metadata', async () => {
    await mkdir(join(dir, 'many'))
    for (let i = 0; i < 1200; i++) {
      await writeFile(join(dir, 'many', `file-with-a-rather-long-name-${i}.txt`), 'x')
    }
    const payload = await preparePayload([join(dir, 'many')], warn)
    expect(payload.metadata.files).toEqual([{ name: 'many/', type: '', size: 1200 }])
    expect(payload.files).toBe(1200)
  })
})

describe('checkPayloadFits', () => {
  async function folderOf(files: number, bytesEach: number) {
    await mkdir(join(dir, 'folder'))
    for (let n = 0; n < files; n++) {
      await writeFile(join(dir, 'folder', `f${n}.bin`), Buffer.alloc(bytesEach))
    }
    return preparePayload([join(dir, 'folder')], warn)
  }

  it('answers the encrypted size of a payload within both limits', async () => {
    const payload = await folderOf(3, 10)
    const limits = { maxFiles: 3, maxEncryptedBytes: encryptedSize(payload.source.size) }
    expect(checkPayloadFits(payload, limits, 'this server')).toBe(limits.maxEncryptedBytes)
  })

  it('refuses more files than one upload takes, naming who refuses', async () => {
    const payload = await folderOf(3, 10)
    expect(() =>
      checkPayloadFits(payload, { maxFiles: 2, maxEncryptedBytes: 1e9 }, 'this request'),
    ).toThrow('3 files are more than this request takes in one upload (2)')
  })

  it('refuses a payload one byte over the encrypted limit', async () => {
    const payload = await folderOf(2, 1000)
    const limit = encryptedSize(payload.source.size) - 1
    expect(() =>
      checkPayloadFits(payload, { maxFiles: 10, maxEncryptedBytes: limit }, 'this server'),
    ).toThrow(/is more than this server takes \(.* encrypted\)$/)
  })
})

describe('sending the same sources again', () => {
  /** A folder of files of a few records each, with fixed times. */
  async function folder(): Promise<string> {
    const root = join(dir, 'album')
    await mkdir(join(root, 'sub'), { recursive: true })
    await writeFile(join(root, 'one.bin'), randomBytes(RECORD_SIZE + 333))
    await writeFile(join(root, 'sub', 'two.bin'), randomBytes(2 * RECORD_SIZE + 5))
    await writeFile(join(root, 'three.txt'), 'three')
    const when = new Date(Date.UTC(2024, 2, 31, 1, 30, 0))
    for (const path of ['one.bin', 'sub/two.bin', 'three.txt', 'sub', '.']) {
      await utimes(join(root, path), when, when)
    }
    return root
  }

  it('writes an archive to the same bytes again, and from a record boundary in the middle', async () => {
    const root = await folder()
    const offset = localUtcOffsetMinutes()
    const first = await preparePayload([root], warn, { utcOffsetMinutes: offset })
    const bytes = await bytesOf(first.source.stream())
    // Another run, in another time zone of the process: the zone saved with the upload is used.
    const saved = process.env.TZ
    process.env.TZ = 'Pacific/Chatham'
    try {
      const second = await preparePayload([root], warn, { utcOffsetMinutes: offset })
      expect((await bytesOf(second.source.stream())).equals(bytes)).toBe(true)
      expect(second.fingerprint).toEqual(first.fingerprint)
      const key = (await deriveUploadKeys(randomBytes(32), randomBytes(32))).fileKey
      // The second run resumes with the tags the first one kept, as a resumed upload does.
      const sealed = new SealedRecords(Math.ceil(first.source.size / RECORD_SIZE))
      const cipher = await bytesOf(ciphertextFrom(first.source, key, { sealed })(0))
      const middle = RECORD_SIZE + RECORD_TAG_SIZE + 100
      const resumed = await bytesOf(ciphertextFrom(second.source, key, { sealed })(middle))
      expect(resumed.equals(cipher.subarray(middle))).toBe(true)
    } finally {
      if (saved === undefined) delete process.env.TZ
      else process.env.TZ = saved
    }
  })

  it('reads a single file from the record holding a resume offset', async () => {
    const data = randomBytes(3 * RECORD_SIZE + 17)
    await writeFile(join(dir, 'big.bin'), data)
    const payload = await preparePayload([join(dir, 'big.bin')], warn)
    const from = 2 * RECORD_SIZE
    expect((await bytesOf(payload.source.streamFrom!(from))).equals(data.subarray(from))).toBe(true)
  })

  // Security: a source that changed cannot be resumed, so no record is sealed again over other
  // plaintext under its used nonce.
  it('fingerprints every change a resume must refuse', async () => {
    const root = await folder()
    const start = (await preparePayload([root], warn, { utcOffsetMinutes: 0 })).fingerprint!
    const now = async () =>
      fingerprintChange(
        start,
        (await preparePayload([root], warn, { utcOffsetMinutes: 0 })).fingerprint!,
      )
    expect(await now()).toBeUndefined()
    // A file added, even with the folder's time put back.
    const when = new Date(Date.UTC(2024, 2, 31, 1, 30, 0))
    await writeFile(join(root, 'sub', 'new.txt'), 'new')
    expect(await now()).toMatch(/^album\/sub\/ changed/)
    await utimes(join(root, 'sub'), when, when)
    expect(await now()).toBe(
      'album/sub/new.txt changed since the upload started; start a new upload',
    )
    await rm(join(root, 'sub', 'new.txt'))
    await utimes(join(root, 'sub'), when, when)
    expect(await now()).toBeUndefined()
    // A size, and a modification time alone.
    await writeFile(join(root, 'three.txt'), 'three!')
    await utimes(join(root, 'three.txt'), when, when)
    expect(await now()).toMatch(/^album\/three\.txt changed/)
    await writeFile(join(root, 'three.txt'), 'three')
    await utimes(join(root, 'three.txt'), when, when)
    expect(await now()).toBeUndefined()
    await utimes(join(root, 'three.txt'), new Date(), new Date())
    expect(await now()).toMatch(/^album\/three\.txt changed/)
  })
})
