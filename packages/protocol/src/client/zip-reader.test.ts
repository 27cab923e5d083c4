import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { collect, pseudoRandomBytes, streamOf } from '../../test/streams.js'
import { utf8 } from '../encoding.js'
import { ProtocolError } from '../errors.js'
import { createZipStream, type ArchiveEntry } from './zip.js'
import {
  canOpenZipEntry,
  openZipEntry,
  readZipDirectory,
  type ArchiveBytes,
  type ZipEntryInfo,
} from './zip-reader.js'

const dir = mkdtempSync(join(tmpdir(), 'fileshare-zip-reader-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Random access to `bytes` that records every range asked for. */
function bytesOf(bytes: Uint8Array): ArchiveBytes & { reads: [number, number][] } {
  const reads: [number, number][] = []
  return {
    plainSize: bytes.length,
    reads,
    read: async (start, end) => {
      reads.push([start, end])
      return bytes.slice(start, end)
    },
    stream: (start, end) => {
      reads.push([start, end])
      return streamOf(bytes.slice(start, end), [5000])
    },
  }
}

const mtime = new Date(2024, 4, 6, 7, 8, 10)
const file = (path: string, data: Uint8Array): ArchiveEntry => ({
  path,
  size: data.length,
  mtime,
  open: () => streamOf(data, [333]),
})

function entryNamed(entries: ZipEntryInfo[], path: string): ZipEntryInfo {
  const entry = entries.find((e) => e.path === path)
  if (!entry) throw new Error(`no ${path}`)
  return entry
}

describe('readZipDirectory and openZipEntry', () => {
  it('lists the writer’s archive and opens one entry reading only its own range', async () => {
    const big = pseudoRandomBytes(3 * 1024 * 1024, 7)
    const note = utf8('a small note\n')
    const archive = await collect(
      createZipStream([
        file('docs/big.bin', big),
        { path: 'docs/empty/', size: 0, mtime },
        file('docs/note.txt', note),
      ]),
    )
    const source = bytesOf(archive)
    const directory = await readZipDirectory(source)
    expect(directory.entries.map((e) => [e.path, e.size, e.directory])).toEqual([
      ['docs/big.bin', big.length, false],
      ['docs/empty/', 0, true],
      ['docs/note.txt', note.length, false],
    ])
    // Listing read the tail (where an end record with a comment could start) and the directory.
    const listed = source.reads.reduce((sum, [a, b]) => sum + b - a, 0)
    expect(listed).toBeLessThan(70 * 1024)

    source.reads.length = 0
    const entry = entryNamed(directory.entries, 'docs/note.txt')
    expect(await collect(await openZipEntry(source, directory, entry))).toEqual(note)
    const opened = source.reads.reduce((sum, [a, b]) => sum + b - a, 0)
    expect(opened).toBe(30 + note.length)
    expect(canOpenZipEntry(entryNamed(directory.entries, 'docs/empty/'))).toBe(false)
  })

  it('inflates deflated entries of an archive Info-ZIP wrote', async () => {
    const folder = join(dir, 'deflated')
    mkdirSync(join(folder, 'sub'), { recursive: true })
    const text = utf8('line of text that compresses well\n'.repeat(2000))
    writeFileSync(join(folder, 'sub', 'text.txt'), text)
    writeFileSync(join(folder, 'random.bin'), pseudoRandomBytes(50_000, 3))
    execFileSync('zip', ['-q', '-r', '-9', join(dir, 'deflated.zip'), '.'], { cwd: folder })
    const source = bytesOf(new Uint8Array(readFileSync(join(dir, 'deflated.zip'))))
    const directory = await readZipDirectory(source)
    const entry = entryNamed(directory.entries, 'sub/text.txt')
    expect(entry.method).toBe(8)
    expect(entry.compressedSize).toBeLessThan(entry.size / 10)
    expect(await collect(await openZipEntry(source, directory, entry))).toEqual(text)
    expect(entryNamed(directory.entries, 'sub/').directory).toBe(true)
  })

  it('refuses an entry whose bytes do not match its CRC-32', async () => {
    const data = utf8('the stored bytes')
    const archive = await collect(createZipStream([file('a.txt', data)]))
    // One bit of the entry's data flipped (after its 30-byte header, name and 9-byte extra).
    const at = 30 + 'a.txt'.length + 9 + 3
    archive[at] = archive[at]! ^ 1
    const source = bytesOf(archive)
    const directory = await readZipDirectory(source)
    const stream = await openZipEntry(source, directory, directory.entries[0]!)
    const error = await collect(stream).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ProtocolError)
    expect(error).toMatchObject({
      code: 'BAD_INPUT',
      message: 'The archive is damaged: entry "a.txt" does not match its CRC-32',
    })
  })

  it('stops inflating an entry at the size its directory gives', async () => {
    // Security: a deflated entry that expands past its declared size is cut off with an error.
    const folder = join(dir, 'bomb')
    mkdirSync(folder, { recursive: true })
    writeFileSync(join(folder, 'zeros.txt'), new Uint8Array(1024 * 1024))
    execFileSync('zip', ['-q', '-9', join(dir, 'bomb.zip'), 'zeros.txt'], { cwd: folder })
    const archive = new Uint8Array(readFileSync(join(dir, 'bomb.zip')))
    const source = bytesOf(archive)
    const { directoryOffset } = await readZipDirectory(source)
    // The central header's uncompressed size (§4.3.12, offset 24) says 1000 bytes.
    new DataView(archive.buffer).setUint32(directoryOffset + 24, 1000, true)
    const directory = await readZipDirectory(source)
    const stream = await openZipEntry(source, directory, directory.entries[0]!)
    const error = await collect(stream).catch((e: unknown) => e)
    expect(error).toMatchObject({
      code: 'BAD_INPUT',
      message: 'The archive is damaged: entry "zeros.txt" holds more bytes than its size',
    })
  })

  it('names a deflate stream that cannot be inflated as damaged, and passes a source error on', async () => {
    const folder = join(dir, 'broken')
    mkdirSync(folder, { recursive: true })
    writeFileSync(join(folder, 'text.txt'), utf8('words that deflate\n'.repeat(500)))
    execFileSync('zip', ['-q', '-9', join(dir, 'broken.zip'), 'text.txt'], { cwd: folder })
    const archive = new Uint8Array(readFileSync(join(dir, 'broken.zip')))
    const local = new DataView(archive.buffer)
    const dataStart = 30 + local.getUint16(26, true) + local.getUint16(28, true)
    // A first block of type 3, which §3.2.3 of RFC 1951 reserves as an error.
    archive[dataStart] = 0xff
    const source = bytesOf(archive)
    const directory = await readZipDirectory(source)
    const entry = entryNamed(directory.entries, 'text.txt')
    expect(entry.method).toBe(8)
    const error = await collect(await openZipEntry(source, directory, entry)).catch((e) => e)
    expect(error).toBeInstanceOf(ProtocolError)
    expect(error).toMatchObject({
      code: 'BAD_INPUT',
      message:
        'The archive is damaged: entry "text.txt" cannot be read: its deflate data is broken',
    })

    const lost = new Error('the connection was lost')
    const failing: ArchiveBytes = {
      ...source,
      stream: () => new ReadableStream({ pull: (c) => c.error(lost) }),
    }
    await expect(collect(await openZipEntry(failing, directory, entry))).rejects.toBe(lost)
  })

  it('gives each entry its host, attributes and modification time', async () => {
    const written = new Date('2021-03-04T05:06:08Z')
    const archive = await collect(
      createZipStream([
        {
          path: 'run.sh',
          size: 1,
          mode: 0o100755,
          mtime: written,
          open: () => streamOf(utf8('x')),
        },
        { path: 'dir/', size: 0, mode: 0o040700, mtime: written },
      ]),
    )
    const { entries } = await readZipDirectory(bytesOf(archive))
    const [run, folder] = entries
    expect(run!.versionMadeBy >>> 8).toBe(3)
    expect(run!.externalAttributes >>> 16).toBe(0o100755)
    expect(folder!.externalAttributes >>> 16).toBe(0o040700)
    // From the 0x5455 extended timestamp, to the second.
    expect(run!.modified.getTime()).toBe(written.getTime())

    // Without extra fields (zip -X) the DOS date and time count, read as local time.
    const folderX = join(dir, 'dos-time')
    mkdirSync(folderX, { recursive: true })
    const local = new Date(2019, 10, 12, 13, 14, 16)
    writeFileSync(join(folderX, 'a.txt'), 'a')
    utimesSync(join(folderX, 'a.txt'), local, local)
    execFileSync('zip', ['-q', '-X', join(dir, 'dos-time.zip'), 'a.txt'], { cwd: folderX })
    const dos = await readZipDirectory(
      bytesOf(new Uint8Array(readFileSync(join(dir, 'dos-time.zip')))),
    )
    expect(dos.entries[0]!.modified.getTime()).toBe(local.getTime())
  })

  it('decodes a name without the UTF-8 flag as code page 437', async () => {
    const archive = await collect(createZipStream([file('cafe.txt', utf8('x'))]))
    const { directoryOffset } = await readZipDirectory(bytesOf(archive))
    const view = new DataView(archive.buffer)
    // §4.3.12: general purpose flags at offset 8; the name from offset 46.
    view.setUint16(directoryOffset + 8, view.getUint16(directoryOffset + 8, true) & ~0x0800, true)
    archive[directoryOffset + 46 + 3] = 0x82
    const { entries } = await readZipDirectory(bytesOf(archive))
    expect(entries[0]!.path).toBe('caf\u00e9.txt')
  })

  it('refuses what is not an archive, and a directory pointing outside it', async () => {
    await expect(readZipDirectory(bytesOf(pseudoRandomBytes(5000, 9)))).rejects.toThrow(
      'Not a valid ZIP archive: no end of central directory record',
    )
    const archive = await collect(createZipStream([file('a.txt', utf8('x'))]))
    const end = archive.length - 22
    // The directory's offset moved past the end records.
    new DataView(archive.buffer).setUint32(end + 16, archive.length, true)
    await expect(readZipDirectory(bytesOf(archive))).rejects.toThrow(
      'Not a valid ZIP archive: the central directory lies outside the archive',
    )
  })

  it('reads Zip64 sizes and offsets of an entry past 4 GiB', async () => {
    const big = 4.5 * 1024 ** 3
    const block = new Uint8Array(16 * 1024 * 1024)
    const zeros = (): ReadableStream<Uint8Array> => {
      let left = big
      return new ReadableStream({
        pull(c) {
          if (left === 0) return c.close()
          const n = Math.min(left, block.length)
          left -= n
          c.enqueue(block.subarray(0, n))
        },
      })
    }
    const after = utf8('after the zeros\n')
    const entries: ArchiveEntry[] = [
      { path: 'zeros.bin', size: big, mtime, open: zeros },
      file('after.txt', after),
    ]
    // Only the last 128 KiB are kept: everything before them is zeros and headers never read.
    const keep = 128 * 1024
    const tail = new Uint8Array(keep)
    let length = 0
    for await (const value of createZipStream(entries)) {
      if (value.length >= keep) tail.set(value.subarray(value.length - keep))
      else {
        tail.copyWithin(0, value.length)
        tail.set(value, keep - value.length)
      }
      length += value.length
    }
    const tailStart = length - keep
    const inTail = (start: number, end: number) => {
      if (start < tailStart) throw new Error(`read before the tail at ${start}`)
      return tail.slice(start - tailStart, end - tailStart)
    }
    const source: ArchiveBytes = {
      plainSize: length,
      read: async (start, end) => inTail(start, end),
      stream: (start, end) => streamOf(inTail(start, end)),
    }
    const directory = await readZipDirectory(source)
    const zeroEntry = entryNamed(directory.entries, 'zeros.bin')
    expect(zeroEntry.size).toBe(big)
    expect(zeroEntry.compressedSize).toBe(big)
    const afterEntry = entryNamed(directory.entries, 'after.txt')
    expect(afterEntry.localHeaderOffset).toBeGreaterThan(big)
    expect(await collect(await openZipEntry(source, directory, afterEntry))).toEqual(after)
  }, 120_000)
})
