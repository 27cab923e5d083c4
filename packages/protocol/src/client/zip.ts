/**
 * A streamed, store-only (no compression) ZIP writer with Zip64 (PKWARE APPNOTE 6.3.10), for
 * packing several files into one payload without ever holding one in memory: each entry is read
 * once, its CRC-32 computed while it streams, and followed by a data descriptor (§4.3.9). The
 * exact output size follows from the entries alone (`zipSize`), because an upload declares its
 * size before it sends; both functions take their numbers from one layout so they cannot differ.
 */
import { utf8 } from '../encoding.js'
import { ProtocolError } from '../errors.js'
import { crc32 } from './crc32.js'
import {
  CENTRAL_HEADER,
  CENTRAL_HEADER_SIZE,
  DATA_DESCRIPTOR,
  END,
  END_SIZE,
  FLAG_UTF8,
  LOCAL_HEADER,
  LOCAL_HEADER_SIZE,
  U16_MAX,
  UNIX_TIME_EXTRA,
  U32_MAX,
  ZIP64_END,
  ZIP64_END_SIZE,
  ZIP64_LOCATOR,
  ZIP64_LOCATOR_SIZE,
} from './zip-format.js'

export interface ArchiveEntry {
  /** `/`-separated path inside the archive; a directory ends with `/`. */
  path: string
  /** Exact byte count `open()` yields; 0 for directories. */
  size: number
  /** Unix `st_mode` including the type bits; default 0o100644 for files, 0o040755 for directories. */
  mode?: number
  /** Modification time: as DOS time (2-second steps, 1980–2107) and as Unix seconds (0x5455). */
  mtime: Date
  /** The entry's bytes (files only); opened when the archive reaches the entry. */
  open?(): ReadableStream<Uint8Array>
}

/** 0x5455 extended timestamp with the modification time only: tag, size, flags, time. */
const TIMESTAMP_EXTRA_SIZE = 9

/** §4.4.3: 4.5 is the version that introduced Zip64; 2.0 suffices otherwise. */
const VERSION_ZIP64 = 45
const VERSION_DEFAULT = 20
/** §4.4.2: upper byte 3 = UNIX, so the external attributes carry st_mode. */
const VERSION_MADE_BY = (3 << 8) | VERSION_ZIP64
/** §4.4.4: bit 3 = sizes and CRC follow in a data descriptor. */
const FLAG_DESCRIPTOR = 0x0008

const S_IFMT = 0o170000
const S_IFREG = 0o100000
const S_IFDIR = 0o040000
const DEFAULT_FILE_MODE = 0o100644
const DEFAULT_DIR_MODE = 0o040755
/** MS-DOS directory attribute, set beside st_mode for tools that read only the low byte. */
const DOS_DIRECTORY = 0x10

/** Everything about one entry that the bytes depend on, computed before anything is written. */
interface EntryLayout {
  entry: ArchiveEntry
  name: Uint8Array
  directory: boolean
  mode: number
  dosTime: number
  dosDate: number
  unixTime: number
  /** Sizes over 0xFFFFFFFF need Zip64 fields in the local header and the descriptor. */
  zip64Size: boolean
  /** Offset of the local header from the start of the archive. */
  offset: number
}

interface ArchiveLayout {
  entries: EntryLayout[]
  centralOffset: number
  centralSize: number
  /** The Zip64 end record and locator are written when a field of the end record overflows. */
  zip64End: boolean
  totalSize: number
}

function badEntry(path: string, reason: string): ProtocolError {
  return new ProtocolError('BAD_INPUT', `Archive entry ${JSON.stringify(path)}: ${reason}`)
}

export interface ZipOptions {
  /**
   * Minutes east of UTC in which DOS times are written (`-new Date().getTimezoneOffset()` for
   * the local zone now). Given, the bytes no longer depend on the zone of the process, so an
   * archive written again for a resumed upload is the same; without it, each time is in the
   * local zone of its own date.
   */
  utcOffsetMinutes?: number
}

/** DOS date and time (§4.4.6) in the given fixed zone or else local time, clamped to its range. */
function dosDateTime(date: Date, utcOffsetMinutes?: number): { dosDate: number; dosTime: number } {
  const fixed = utcOffsetMinutes !== undefined
  let d = fixed ? new Date(date.getTime() + utcOffsetMinutes * 60_000) : date
  const year = (x: Date) => (fixed ? x.getUTCFullYear() : x.getFullYear())
  if (year(d) < 1980) d = fixed ? new Date(Date.UTC(1980, 0, 1)) : new Date(1980, 0, 1, 0, 0, 0)
  else if (year(d) > 2107) {
    d = fixed ? new Date(Date.UTC(2107, 11, 31, 23, 59, 58)) : new Date(2107, 11, 31, 23, 59, 58)
  }
  const [y, mo, day, h, mi, sec] = fixed
    ? [
        d.getUTCFullYear(),
        d.getUTCMonth(),
        d.getUTCDate(),
        d.getUTCHours(),
        d.getUTCMinutes(),
        d.getUTCSeconds(),
      ]
    : [d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds()]
  return {
    dosDate: ((y - 1980) << 9) | ((mo + 1) << 5) | day,
    dosTime: (h << 11) | (mi << 5) | (sec >>> 1),
  }
}

function layoutEntry(entry: ArchiveEntry, offset: number, options: ZipOptions): EntryLayout {
  const { path } = entry
  if (typeof path !== 'string' || path.length === 0 || path === '/') {
    throw badEntry(String(path), 'the path is empty')
  }
  if (path.startsWith('/') || path.includes('\\') || path.includes('\0')) {
    throw badEntry(path, 'the path must be relative, `/`-separated, without NUL')
  }
  const directory = path.endsWith('/')
  const segments = (directory ? path.slice(0, -1) : path).split('/')
  if (segments.some((s) => s === '' || s === '.' || s === '..')) {
    throw badEntry(path, 'the path has an empty, `.` or `..` segment')
  }
  if (!Number.isSafeInteger(entry.size) || entry.size < 0) {
    throw badEntry(path, 'the size must be a non-negative integer')
  }
  if (directory && entry.size !== 0) throw badEntry(path, 'a directory has no bytes')
  if (!(entry.mtime instanceof Date) || Number.isNaN(entry.mtime.getTime())) {
    throw badEntry(path, 'the modification time is not a valid date')
  }
  let mode = entry.mode ?? (directory ? DEFAULT_DIR_MODE : DEFAULT_FILE_MODE)
  if (!Number.isInteger(mode) || mode < 0 || mode > U16_MAX) {
    throw badEntry(path, 'the mode must be a 16-bit st_mode')
  }
  // A mode of permission bits alone gets the type the path says.
  if ((mode & S_IFMT) === 0) mode |= directory ? S_IFDIR : S_IFREG
  if (directory !== ((mode & S_IFMT) === S_IFDIR)) {
    throw badEntry(path, 'the mode and the trailing `/` disagree about being a directory')
  }
  const name = utf8(path)
  if (name.length > U16_MAX) throw badEntry(path, 'the path is too long')
  const seconds = Math.floor(entry.mtime.getTime() / 1000)
  return {
    entry,
    name,
    directory,
    mode,
    ...dosDateTime(entry.mtime, options.utcOffsetMinutes),
    unixTime: Math.min(Math.max(seconds, 0), U32_MAX),
    zip64Size: entry.size >= U32_MAX,
    offset,
  }
}

/** Local header length: fixed part, name, Zip64 sizes when needed, timestamp. */
function localHeaderLength(e: EntryLayout): number {
  return LOCAL_HEADER_SIZE + e.name.length + (e.zip64Size ? 20 : 0) + TIMESTAMP_EXTRA_SIZE
}

/** Files carry a data descriptor (with 8-byte sizes once Zip64); directories need none. */
function descriptorLength(e: EntryLayout): number {
  if (e.directory) return 0
  return e.zip64Size ? 24 : 16
}

/** The values of the central header that overflow into its Zip64 field (§4.5.3, in order). */
function centralZip64Fields(e: EntryLayout): number[] {
  const fields: number[] = []
  if (e.zip64Size) fields.push(e.entry.size, e.entry.size)
  if (e.offset >= U32_MAX) fields.push(e.offset)
  return fields
}

function centralHeaderLength(e: EntryLayout): number {
  const zip64 = centralZip64Fields(e).length
  return (
    CENTRAL_HEADER_SIZE + e.name.length + (zip64 > 0 ? 4 + 8 * zip64 : 0) + TIMESTAMP_EXTRA_SIZE
  )
}

function layoutArchive(entries: readonly ArchiveEntry[], options: ZipOptions = {}): ArchiveLayout {
  const offsetMinutes = options.utcOffsetMinutes
  if (
    offsetMinutes !== undefined &&
    (!Number.isInteger(offsetMinutes) || Math.abs(offsetMinutes) > 24 * 60)
  ) {
    throw new ProtocolError('BAD_INPUT', 'The archive time zone offset is out of range')
  }
  const layouts: EntryLayout[] = []
  let offset = 0
  for (const entry of entries) {
    const e = layoutEntry(entry, offset, options)
    layouts.push(e)
    offset += localHeaderLength(e) + entry.size + descriptorLength(e)
  }
  const centralOffset = offset
  let centralSize = 0
  for (const e of layouts) centralSize += centralHeaderLength(e)
  const zip64End = layouts.length >= U16_MAX || centralSize >= U32_MAX || centralOffset >= U32_MAX
  const totalSize =
    centralOffset + centralSize + (zip64End ? ZIP64_END_SIZE + ZIP64_LOCATOR_SIZE : 0) + END_SIZE
  if (!Number.isSafeInteger(totalSize)) throw new ProtocolError('BAD_INPUT', 'Archive too large')
  return { entries: layouts, centralOffset, centralSize, zip64End, totalSize }
}

/** The exact byte length `createZipStream(entries)` produces. Throws BAD_INPUT for bad entries. */
export function zipSize(entries: readonly ArchiveEntry[]): number {
  return layoutArchive(entries).totalSize
}

/**
 * The path of the one entry whose bytes (local header, data, descriptor) overlap the archive's
 * bytes [start, end), for an error naming what changed there; undefined when several entries or
 * none (the central directory) do.
 */
export function zipEntryAt(
  entries: readonly ArchiveEntry[],
  start: number,
  end: number,
): string | undefined {
  const layouts = layoutArchive(entries).entries
  const overlapping = layouts.filter((e) => {
    const after = e.offset + localHeaderLength(e) + e.entry.size + descriptorLength(e)
    return e.offset < end && start < after
  })
  return overlapping.length === 1 ? overlapping[0]!.entry.path : undefined
}

/** Little-endian writer over a fixed buffer; 64-bit values are split since they exceed 2^32. */
class Writer {
  readonly bytes: Uint8Array
  private readonly view: DataView
  private at = 0

  constructor(length: number) {
    this.bytes = new Uint8Array(length)
    this.view = new DataView(this.bytes.buffer)
  }

  u16(value: number): this {
    this.view.setUint16(this.at, value, true)
    this.at += 2
    return this
  }

  u32(value: number): this {
    this.view.setUint32(this.at, value >>> 0, true)
    this.at += 4
    return this
  }

  u64(value: number): this {
    this.view.setUint32(this.at, value % 0x100000000, true)
    this.view.setUint32(this.at + 4, Math.floor(value / 0x100000000), true)
    this.at += 8
    return this
  }

  raw(bytes: Uint8Array): this {
    this.bytes.set(bytes, this.at)
    this.at += bytes.length
    return this
  }

  /** The buffer, after checking that exactly its length was written. */
  done(): Uint8Array {
    if (this.at !== this.bytes.length) throw new Error('zip layout and writer disagree')
    return this.bytes
  }

  timestamp(unixTime: number): this {
    // 0x5455 "UT": flags bit 0 = modification time present.
    return this.u16(UNIX_TIME_EXTRA).u16(5).u8(1).u32(unixTime)
  }

  private u8(value: number): this {
    this.view.setUint8(this.at, value)
    this.at += 1
    return this
  }
}

function flagsOf(e: EntryLayout): number {
  return e.directory ? FLAG_UTF8 : FLAG_UTF8 | FLAG_DESCRIPTOR
}

/** §4.3.7. With a descriptor the CRC and sizes here are zero; Zip64 sizes go in the extra. */
function localHeader(e: EntryLayout): Uint8Array {
  const w = new Writer(localHeaderLength(e))
  w.u32(LOCAL_HEADER)
    .u16(e.zip64Size ? VERSION_ZIP64 : VERSION_DEFAULT)
    .u16(flagsOf(e))
    .u16(0)
    .u16(e.dosTime)
    .u16(e.dosDate)
    .u32(0)
    .u32(e.zip64Size ? U32_MAX : 0)
    .u32(e.zip64Size ? U32_MAX : 0)
    .u16(e.name.length)
    .u16(localHeaderLength(e) - LOCAL_HEADER_SIZE - e.name.length)
    .raw(e.name)
  if (e.zip64Size) w.u16(0x0001).u16(16).u64(0).u64(0)
  return w.timestamp(e.unixTime).done()
}

/** §4.3.9: signature, CRC, then sizes of 8 bytes each when the local header had Zip64. */
function dataDescriptor(e: EntryLayout, crc: number): Uint8Array {
  const w = new Writer(descriptorLength(e)).u32(DATA_DESCRIPTOR).u32(crc)
  if (e.zip64Size) w.u64(e.entry.size).u64(e.entry.size)
  else w.u32(e.entry.size).u32(e.entry.size)
  return w.done()
}

/** §4.3.12. Fields that overflow read 0xFFFFFFFF and their values move to the Zip64 extra. */
function writeCentralHeader(w: Writer, e: EntryLayout, crc: number): void {
  const zip64 = centralZip64Fields(e)
  w.u32(CENTRAL_HEADER)
    .u16(VERSION_MADE_BY)
    .u16(zip64.length > 0 ? VERSION_ZIP64 : VERSION_DEFAULT)
    .u16(flagsOf(e))
    .u16(0)
    .u16(e.dosTime)
    .u16(e.dosDate)
    .u32(crc)
    .u32(e.zip64Size ? U32_MAX : e.entry.size)
    .u32(e.zip64Size ? U32_MAX : e.entry.size)
    .u16(e.name.length)
    .u16(centralHeaderLength(e) - CENTRAL_HEADER_SIZE - e.name.length)
    .u16(0)
    .u16(0)
    .u16(0)
    .u32(((e.mode << 16) | (e.directory ? DOS_DIRECTORY : 0)) >>> 0)
    .u32(e.offset >= U32_MAX ? U32_MAX : e.offset)
    .raw(e.name)
  if (zip64.length > 0) {
    w.u16(0x0001).u16(8 * zip64.length)
    for (const value of zip64) w.u64(value)
  }
  w.timestamp(e.unixTime)
}

/** The central directory and the end records (§4.3.12 to §4.3.16). */
function centralDirectory(layout: ArchiveLayout, crcs: readonly number[]): Uint8Array {
  const { entries, centralOffset, centralSize, zip64End } = layout
  const w = new Writer(layout.totalSize - centralOffset)
  entries.forEach((e, i) => writeCentralHeader(w, e, crcs[i]!))
  if (zip64End) {
    const zip64EndOffset = centralOffset + centralSize
    w.u32(ZIP64_END)
      .u64(ZIP64_END_SIZE - 12)
      .u16(VERSION_MADE_BY)
      .u16(VERSION_ZIP64)
      .u32(0)
      .u32(0)
      .u64(entries.length)
      .u64(entries.length)
      .u64(centralSize)
      .u64(centralOffset)
    w.u32(ZIP64_LOCATOR).u32(0).u64(zip64EndOffset).u32(1)
  }
  const count = Math.min(entries.length, U16_MAX)
  w.u32(END)
    .u16(0)
    .u16(0)
    .u16(count)
    .u16(count)
    .u32(Math.min(centralSize, U32_MAX))
    .u32(Math.min(centralOffset, U32_MAX))
    .u16(0)
  return w.done()
}

function wrongSize(e: EntryLayout): ProtocolError {
  return badEntry(e.entry.path, `its data is not the ${e.entry.size} bytes that were declared`)
}

async function* archiveParts(layout: ArchiveLayout): AsyncGenerator<Uint8Array> {
  const crcs: number[] = []
  for (const e of layout.entries) {
    yield localHeader(e)
    if (e.directory) {
      crcs.push(0)
      continue
    }
    let crc = 0
    let count = 0
    const reader = e.entry.open?.().getReader()
    let finished = false
    try {
      while (reader) {
        const { value, done } = await reader.read()
        if (done) break
        if (!(value instanceof Uint8Array)) throw badEntry(e.entry.path, 'it yields non-bytes')
        count += value.length
        if (count > e.entry.size) throw wrongSize(e)
        if (value.length === 0) continue
        crc = crc32(value, crc)
        yield value
      }
      finished = true
    } finally {
      // An entry left early (an error, or the archive cancelled) releases its source.
      if (reader && !finished) await reader.cancel().catch(() => undefined)
    }
    if (count !== e.entry.size) throw wrongSize(e)
    crcs.push(crc)
    yield dataDescriptor(e, crc)
  }
  yield centralDirectory(layout, crcs)
}

/**
 * The archive of `entries` as a pull-based stream: one entry open at a time, the same bytes for
 * the same entries (in the same order, with the same sizes, modes and times) and, with
 * `utcOffsetMinutes`, in any time zone. Errors with ProtocolError('BAD_INPUT') when an entry
 * yields another byte count than its `size`. Bad entries (paths, sizes, modes) throw here,
 * before anything streams.
 */
export function createZipStream(
  entries: readonly ArchiveEntry[],
  options: ZipOptions = {},
): ReadableStream<Uint8Array> {
  const parts = archiveParts(layoutArchive(entries, options))
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { value, done } = await parts.next()
        if (done) controller.close()
        else controller.enqueue(value)
      },
      async cancel() {
        await parts.return(undefined)
      },
    },
    { highWaterMark: 0 },
  )
}
