import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32 as zlibCrc32 } from 'node:zlib'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { collect, pseudoRandomBytes, streamOf } from '../../test/streams.js'
import { utf8 } from '../encoding.js'
import { ProtocolError } from '../errors.js'
import { createZipStream, zipEntryAt, zipSize, type ArchiveEntry } from './zip.js'

const dir = mkdtempSync(join(tmpdir(), 'fileshare-zip-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let serial = 0

function file(path: string, data: Uint8Array, extra: Partial<ArchiveEntry> = {}): ArchiveEntry {
  return {
    path,
    size: data.length,
    mtime: new Date(2024, 4, 6, 7, 8, 10),
    open: () => streamOf(data, [7, 100, 3]),
    ...extra,
  }
}

function directory(path: string, extra: Partial<ArchiveEntry> = {}): ArchiveEntry {
  return { path, size: 0, mtime: new Date(2023, 0, 2, 3, 4, 6), ...extra }
}

async function archive(entries: ArchiveEntry[]): Promise<{ bytes: Uint8Array; path: string }> {
  const bytes = await collect(createZipStream(entries))
  const path = join(dir, `a${serial++}.zip`)
  writeFileSync(path, bytes)
  return { bytes, path }
}

function unzip(...args: string[]): string {
  return execFileSync('unzip', args, {
    encoding: 'utf8',
    env: { ...process.env, LC_ALL: 'C.UTF-8' },
  })
}

const pad2 = (n: number) => String(n).padStart(2, '0')

/** `yyyymmdd.hhmmss` in local time, as `unzip -Z -T` prints the 0x5455 time. */
function sortable(d: Date): string {
  return `${d.getFullYear()}${pad2(d.getMonth() + 1)}${pad2(d.getDate())}.${pad2(d.getHours())}${pad2(d.getMinutes())}${pad2(d.getSeconds())}`
}

const MONTHS = 'Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec'.split(' ')

/** The `(DOS date/time)` line of `unzip -Zv` for a local time. */
function dosLine(d: Date): string {
  const time = `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`
  return `file last modified on (DOS date/time):          ${d.getFullYear()} ${MONTHS[d.getMonth()]} ${d.getDate()} ${time}`
}

const hello = utf8('hello, archive\n')
const random = pseudoRandomBytes(300_000, 9)

describe('zipSize and createZipStream', () => {
  it('produce exactly the announced number of bytes, and unzip -t accepts the archive', async () => {
    const entries = [
      directory('docs/'),
      file('docs/hello.txt', hello),
      file('random.bin', random),
      file('empty.txt', new Uint8Array(0)),
      directory('empty-dir/'),
    ]
    const { bytes, path } = await archive(entries)
    expect(bytes.length).toBe(zipSize(entries))
    expect(unzip('-t', path)).toContain('No errors detected')
  })

  it('extracts to the same names, bytes, modes and times', async () => {
    const mtime = new Date(2021, 6, 15, 13, 14, 16)
    const entries = [
      directory('ünïcødé/', { mode: 0o040700 }),
      file('ünïcødé/日本語 ファイル.txt', hello, { mtime }),
      file('run.sh', utf8('#!/bin/sh\necho hi\n'), { mode: 0o100755 }),
      file('ro.txt', random, { mode: 0o444 }),
      file('nothing', new Uint8Array(0)),
      directory('a/b/c/'),
    ]
    const { path } = await archive(entries)
    const out = join(dir, `x${serial++}`)
    unzip('-q', path, '-d', out)
    expect(readFileSync(join(out, 'ünïcødé/日本語 ファイル.txt'))).toEqual(Buffer.from(hello))
    expect(readFileSync(join(out, 'ro.txt'))).toEqual(Buffer.from(random))
    expect(readFileSync(join(out, 'nothing')).length).toBe(0)
    expect(statSync(join(out, 'run.sh')).mode & 0o777).toBe(0o755)
    expect(statSync(join(out, 'ro.txt')).mode & 0o777).toBe(0o444)
    expect(statSync(join(out, 'a/b/c')).isDirectory()).toBe(true)
    // unzip restores the modification time from the 0x5455 field, in whole seconds.
    expect(statSync(join(out, 'ünïcødé/日本語 ファイル.txt')).mtimeMs).toBe(mtime.getTime())
  })

  it('shows Unix modes, DOS times and UTC timestamps in unzip -Z', async () => {
    const mtime = new Date(Date.UTC(2001, 1, 3, 4, 5, 7))
    const entries = [
      directory('dir/'),
      file('dir/exec', hello, { mode: 0o100750, mtime }),
      file('plain', hello),
    ]
    const { path } = await archive(entries)
    const listing = unzip('-Z', '-T', path)
    expect(listing).toContain('number of entries: 3')
    expect(listing).toMatch(/^drwxr-xr-x {2}4\.5 unx {8}0 b. stor 20230102\.030406 dir\/$/m)
    expect(listing).toMatch(new RegExp(`^-rwxr-x--- .* stor ${sortable(mtime)} dir/exec$`, 'm'))
    expect(listing).toMatch(/^-rw-r--r-- .* plain$/m)
    const verbose = unzip('-Zv', path)
    expect(verbose).toContain(
      'file last modified on (UT extra field modtime): 2001 Feb 3 04:05:07 UTC',
    )
    // DOS time has 2-second steps: 07 s is stored as 06 s.
    expect(verbose).toContain(dosLine(new Date(mtime.getTime() - 1000)))
    expect(verbose).toContain('Unix file attributes (100750 octal):')
    expect(verbose).toContain('file system or operating system of origin:      Unix')
  })

  it('clamps times the DOS format cannot hold', async () => {
    const entries = [
      file('old', hello, { mtime: new Date(1970, 0, 2) }),
      file('future', hello, { mtime: new Date(2200, 0, 1) }),
    ]
    const { bytes, path } = await archive(entries)
    expect(bytes.length).toBe(zipSize(entries))
    const verbose = unzip('-Zv', path)
    expect(verbose).toContain(dosLine(new Date(1980, 0, 1, 0, 0, 0)))
    expect(verbose).toContain(dosLine(new Date(2107, 11, 31, 23, 59, 58)))
  })

  it('is deterministic for the same entries', async () => {
    const entries = () => [directory('d/'), file('d/x', random), file('y', hello)]
    const a = await collect(createZipStream(entries()))
    const b = await collect(createZipStream(entries()))
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true)
  })

  it('fails with BAD_INPUT when an entry yields fewer or more bytes than declared', async () => {
    for (const yielded of [hello.subarray(0, 5), new Uint8Array([...hello, 1])]) {
      const entry: ArchiveEntry = { ...file('x', hello), open: () => streamOf(yielded) }
      const failure = collect(createZipStream([entry]))
      await expect(failure).rejects.toBeInstanceOf(ProtocolError)
      await expect(failure).rejects.toMatchObject({ code: 'BAD_INPUT' })
    }
  })

  it('refuses unsafe or inconsistent entries before streaming', () => {
    const bad: ArchiveEntry[] = [
      file('../escape', hello),
      file('/absolute', hello),
      file('a//b', hello),
      file('a/./b', hello),
      file('back\\slash', hello),
      { ...directory('d/'), size: 3 },
      file('f', hello, { mode: 0o040755 }),
      file('f', hello, { size: -1 }),
      file('f', hello, { mtime: new Date(Number.NaN) }),
      file('', hello),
    ]
    for (const entry of bad) {
      expect(() => zipSize([entry])).toThrow(ProtocolError)
      expect(() => createZipStream([entry])).toThrow(ProtocolError)
    }
  })

  it('releases the entry being read when the archive is cancelled', async () => {
    let cancelled = false
    const entry: ArchiveEntry = {
      path: 'endless',
      size: 10 * 1024 * 1024,
      mtime: new Date(),
      open: () =>
        new ReadableStream<Uint8Array>({
          pull: (c) => c.enqueue(new Uint8Array(1024)),
          cancel: () => void (cancelled = true),
        }),
    }
    const reader = createZipStream([entry]).getReader()
    await reader.read()
    await reader.read()
    await reader.cancel()
    expect(cancelled).toBe(true)
  })

  it('announces the exact size for any entries, and unzip agrees with the content', async () => {
    const name = fc.stringMatching(/^[a-zA-Zé日 _.-]{1,12}$/).filter((s) => s !== '.' && s !== '..')
    const entryArb = fc.record({
      segments: fc.array(name, { minLength: 1, maxLength: 3 }),
      isDir: fc.boolean(),
      size: fc.nat(5000),
      seed: fc.integer({ min: 1, max: 1000 }),
      mode: fc.constantFrom(0o644, 0o600, 0o755),
    })
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(entryArb, { maxLength: 8, selector: (e) => e.segments.join('/') }),
        async (specs) => {
          const entries = specs.map((s) => {
            const path = s.segments.join('/')
            return s.isDir
              ? directory(`${path}/`, { mode: 0o040000 | s.mode })
              : file(path, pseudoRandomBytes(s.size, s.seed), { mode: 0o100000 | s.mode })
          })
          const paths = entries.map((e) => e.path)
          fc.pre(new Set(paths.map((p) => p.replace(/\/$/, ''))).size === paths.length)
          const { bytes, path } = await archive(entries)
          expect(bytes.length).toBe(zipSize(entries))
          if (entries.length > 0) expect(unzip('-t', path)).toContain('No errors detected')
        },
      ),
      { numRuns: 40 },
    )
  })
})

/** A reader of the little-endian fields of a captured piece of the archive. */
function fields(bytes: Uint8Array, base = 0) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return {
    u16: (at: number) => view.getUint16(at - base, true),
    u32: (at: number) => view.getUint32(at - base, true),
    u64: (at: number) =>
      view.getUint32(at - base, true) + view.getUint32(at - base + 4, true) * 0x100000000,
  }
}

describe('a fixed time zone', () => {
  const entries = () => [
    directory('d/', { mtime: new Date(Date.UTC(2024, 6, 1, 12, 0, 0)) }),
    file('d/summer', hello, { mtime: new Date(Date.UTC(2024, 6, 1, 23, 30, 0)) }),
    file('d/winter', random, { mtime: new Date(Date.UTC(2024, 0, 1, 23, 30, 0)) }),
  ]

  /** The archive's bytes written while the process runs in `zone`. */
  async function bytesIn(zone: string, options: { utcOffsetMinutes?: number }) {
    const saved = process.env.TZ
    process.env.TZ = zone
    try {
      return await collect(createZipStream(entries(), options))
    } finally {
      if (saved === undefined) delete process.env.TZ
      else process.env.TZ = saved
    }
  }

  it('gives the same bytes in any zone of the process, so an archive can be written again', async () => {
    const tokyo = await bytesIn('Asia/Tokyo', { utcOffsetMinutes: 60 })
    const newYork = await bytesIn('America/New_York', { utcOffsetMinutes: 60 })
    expect(Buffer.from(tokyo).equals(newYork)).toBe(true)
    // Without a fixed offset the DOS times follow the process's zone.
    const localTokyo = await bytesIn('Asia/Tokyo', {})
    const localNewYork = await bytesIn('America/New_York', {})
    expect(Buffer.from(localTokyo).equals(localNewYork)).toBe(false)
  })

  it('writes DOS times in that offset, whatever the date', async () => {
    const path = join(dir, `tz${serial++}.zip`)
    writeFileSync(path, await bytesIn('America/New_York', { utcOffsetMinutes: 60 }))
    const verbose = unzip('-Zv', path)
    expect(verbose).toContain('file last modified on (DOS date/time):          2024 Jul 2 00:30:00')
    expect(verbose).toContain('file last modified on (DOS date/time):          2024 Jan 2 00:30:00')
  })

  it('refuses an offset that is no time zone', () => {
    expect(() => createZipStream(entries(), { utcOffsetMinutes: 24 * 60 + 1 })).toThrow(
      ProtocolError,
    )
  })
})

describe('Zip64', () => {
  it('writes Zip64 sizes, offsets and end records for an entry over 4 GiB', async () => {
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
    const mtime = new Date(2024, 0, 1)
    const entries: ArchiveEntry[] = [
      { path: 'zeros.bin', size: big, mtime, open: zeros },
      { path: 'after.txt', size: hello.length, mtime, open: () => streamOf(hello) },
    ]
    const total = zipSize(entries)

    // Keep the first and last 64 KiB; the zeros in between are only counted.
    const keep = 64 * 1024
    let head = new Uint8Array(0)
    const tail = new Uint8Array(keep)
    let length = 0
    const reader = createZipStream(entries).getReader()
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      if (head.length < keep)
        head = new Uint8Array([...head, ...value.subarray(0, keep - head.length)])
      if (value.length >= keep) tail.set(value.subarray(value.length - keep))
      else {
        tail.copyWithin(0, value.length)
        tail.set(value, keep - value.length)
      }
      length += value.length
    }
    expect(length).toBe(total)
    const end = fields(tail, total - keep)
    const start = fields(head)

    // End of central directory: counts fit, so only the offset overflows (APPNOTE 4.4.24).
    const eocd = total - 22
    expect(end.u32(eocd)).toBe(0x06054b50)
    expect(end.u16(eocd + 10)).toBe(2)
    expect(end.u32(eocd + 16)).toBe(0xffffffff)
    // Zip64 end record locator, then the Zip64 end record it points at.
    const locator = eocd - 20
    expect(end.u32(locator)).toBe(0x07064b50)
    const zip64End = end.u64(locator + 8)
    expect(zip64End).toBe(locator - 56)
    expect(end.u32(zip64End)).toBe(0x06064b50)
    expect(end.u64(zip64End + 4)).toBe(44)
    expect(end.u16(zip64End + 14)).toBe(45)
    expect(end.u64(zip64End + 32)).toBe(2)
    const cdSize = end.u64(zip64End + 40)
    const cdOffset = end.u64(zip64End + 48)
    expect(cdOffset + cdSize).toBe(zip64End)

    // First central header: sizes in its Zip64 field, offset 0 still in the header.
    expect(end.u32(cdOffset)).toBe(0x02014b50)
    expect(end.u16(cdOffset + 6)).toBe(45)
    expect(end.u32(cdOffset + 20)).toBe(0xffffffff)
    expect(end.u32(cdOffset + 24)).toBe(0xffffffff)
    const name1 = end.u16(cdOffset + 28)
    const extra1 = cdOffset + 46 + name1
    expect(end.u16(extra1)).toBe(0x0001)
    expect(end.u16(extra1 + 2)).toBe(16)
    expect(end.u64(extra1 + 4)).toBe(big)
    expect(end.u64(extra1 + 12)).toBe(big)
    expect(end.u32(cdOffset + 42)).toBe(0)
    let crc = 0
    for (let left = big; left > 0; left -= block.length) {
      crc = zlibCrc32(block.subarray(0, Math.min(left, block.length)), crc)
    }
    expect(end.u32(cdOffset + 16)).toBe(crc)

    // Second central header: a small entry whose local header lies past 4 GiB.
    const cd2 = cdOffset + 46 + name1 + end.u16(cdOffset + 30)
    expect(end.u32(cd2)).toBe(0x02014b50)
    expect(end.u32(cd2 + 20)).toBe(hello.length)
    expect(end.u32(cd2 + 42)).toBe(0xffffffff)
    const extra2 = cd2 + 46 + end.u16(cd2 + 28)
    expect(end.u16(extra2)).toBe(0x0001)
    expect(end.u16(extra2 + 2)).toBe(8)
    const local2 = end.u64(extra2 + 4)
    expect(end.u32(local2)).toBe(0x04034b50)

    // The big entry's local header (Zip64 extra with zero sizes) and its 24-byte descriptor.
    expect(start.u32(0)).toBe(0x04034b50)
    expect(start.u16(4)).toBe(45)
    expect(start.u16(6) & 0x0808).toBe(0x0808)
    expect(start.u32(18)).toBe(0xffffffff)
    const localExtra = 30 + start.u16(26)
    expect(start.u16(localExtra)).toBe(0x0001)
    expect(start.u16(localExtra + 2)).toBe(16)
    const dataStart = 30 + start.u16(26) + start.u16(28)
    expect(local2 - 24).toBe(dataStart + big)
    const descriptor = local2 - 24
    expect(end.u32(descriptor)).toBe(0x08074b50)
    expect(end.u32(descriptor + 4)).toBe(crc)
    expect(end.u64(descriptor + 8)).toBe(big)
    expect(end.u64(descriptor + 16)).toBe(big)
  }, 180_000)
})

describe('zipEntryAt', () => {
  it('names the one entry whose bytes a range covers, and none where several or none do', async () => {
    const a = pseudoRandomBytes(1000, 1)
    const entries = [directory('docs/'), file('docs/a.bin', a), file('docs/b.bin', a)]
    const archive = await collect(createZipStream(entries))
    const aData = indexOf(archive, a)
    expect(zipEntryAt(entries, aData + 10, aData + 20)).toBe('docs/a.bin')
    const bData = indexOf(archive, a, aData + 1)
    expect(zipEntryAt(entries, bData, bData + 1000)).toBe('docs/b.bin')
    // From a's data into b's header: two entries.
    expect(zipEntryAt(entries, aData + 990, bData)).toBeUndefined()
    // The central directory belongs to no one entry.
    expect(zipEntryAt(entries, archive.length - 30, archive.length)).toBeUndefined()
  })
})

/** Where `part` first occurs in `bytes` at or after `from`. */
function indexOf(bytes: Uint8Array, part: Uint8Array, from = 0): number {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).indexOf(part, from)
}
