/**
 * Reads a ZIP archive in place through random access to its bytes (an upload's plaintext ranges,
 * `FileRanges`): the end records and the central directory to list its entries, then one entry's
 * local header and data to open it, inflating deflated entries with DecompressionStream and
 * checking every entry against its size and CRC-32 (PKWARE APPNOTE 6.3.10). Reads nothing else,
 * and streams an entry's data in the source's own pieces, however large the entry.
 */
import { ProtocolError } from '../errors.js'
import { crc32 } from './crc32.js'
import {
  CENTRAL_HEADER,
  CENTRAL_HEADER_SIZE,
  END,
  END_SIZE,
  FLAG_ENCRYPTED,
  FLAG_UTF8,
  LOCAL_HEADER,
  LOCAL_HEADER_SIZE,
  U16_MAX,
  U32_MAX,
  ZIP64_END,
  ZIP64_END_SIZE,
  ZIP64_EXTRA,
  ZIP64_LOCATOR,
  ZIP64_LOCATOR_SIZE,
  UNIX_TIME_EXTRA,
} from './zip-format.js'

/** Random access to an archive's bytes; `end` is exclusive. `FileRanges` is one. */
export interface ArchiveBytes {
  readonly plainSize: number
  read(start: number, end: number): Promise<Uint8Array>
  stream(start: number, end: number): ReadableStream<Uint8Array>
}

export interface ZipEntryInfo {
  /** Position in the central directory. */
  index: number
  /** The name as stored: `/`-separated, a folder's ends with `/`. */
  path: string
  directory: boolean
  /** Bytes once opened (uncompressed). */
  size: number
  compressedSize: number
  /** §4.4.5: 0 stored, 8 deflated; anything else cannot be opened here. */
  method: number
  encrypted: boolean
  crc32: number
  localHeaderOffset: number
  /** §4.4.2: the host system in the high byte (3 is Unix), the format version in the low one. */
  versionMadeBy: number
  /** §4.4.15: on a Unix host, st_mode in the high 16 bits; MS-DOS attributes in the low byte. */
  externalAttributes: number
  /** The 0x5455 extended timestamp when present, else the DOS date and time read as local time. */
  modified: Date
}

export interface ZipDirectory {
  entries: ZipEntryInfo[]
  /** Where the central directory starts: every entry's data lies before it. */
  directoryOffset: number
}

/** The largest central directory read: far above any real archive's, far below a page's memory. */
export const MAX_DIRECTORY_SIZE = 64 * 1024 * 1024
/** The end record, plus the longest comment it can carry (§4.3.16). */
const TAIL_SIZE = END_SIZE + U16_MAX
const METHOD_STORED = 0
const METHOD_DEFLATED = 8

function invalid(why: string): ProtocolError {
  return new ProtocolError('BAD_INPUT', `Not a valid ZIP archive: ${why}`)
}

/** The name is quoted: it may hold spaces, and JSON escapes the control characters it may hold. */
function damaged(entry: ZipEntryInfo, why: string): ProtocolError {
  const name = JSON.stringify(entry.path)
  return new ProtocolError('BAD_INPUT', `The archive is damaged: entry ${name} ${why}`, {
    subject: entry.path,
  })
}

/** Little-endian fields of a byte string; 64-bit values must stay below 2^53. */
class Fields {
  private readonly view: DataView
  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }
  u16(at: number): number {
    return this.view.getUint16(at, true)
  }
  u32(at: number): number {
    return this.view.getUint32(at, true)
  }
  u64(at: number): number {
    const value = this.view.getUint32(at, true) + this.view.getUint32(at + 4, true) * 2 ** 32
    if (!Number.isSafeInteger(value)) throw invalid('a size or offset is too large')
    return value
  }
}

/** Where the central directory lies and how many entries it holds, from the end records. */
interface DirectoryPlace {
  offset: number
  size: number
  count: number
  /** The first byte of the end records: the directory must end at or before it. */
  endRecords: number
}

/** §4.3.16: the end record is the last one whose comment runs exactly to the end. */
function findEnd(tail: Uint8Array): number {
  const fields = new Fields(tail)
  for (let at = tail.length - END_SIZE; at >= 0; at--) {
    if (fields.u32(at) === END && at + END_SIZE + fields.u16(at + 20) === tail.length) return at
  }
  throw invalid('no end of central directory record')
}

async function placeDirectory(source: ArchiveBytes): Promise<DirectoryPlace> {
  const size = source.plainSize
  if (size < END_SIZE) throw invalid('too short')
  const tailStart = Math.max(0, size - TAIL_SIZE)
  const tail = await source.read(tailStart, size)
  const at = findEnd(tail)
  const end = new Fields(tail.subarray(at))
  if (end.u16(4) !== 0 || end.u16(6) !== 0) throw invalid('it spans several disks')
  const endOffset = tailStart + at
  let place: DirectoryPlace = {
    count: end.u16(10),
    size: end.u32(12),
    offset: end.u32(16),
    endRecords: endOffset,
  }
  // §4.3.15: a Zip64 locator just before the end record points at the Zip64 end record.
  const locatorOffset = endOffset - ZIP64_LOCATOR_SIZE
  if (locatorOffset >= 0) {
    const locator = new Fields(await source.read(locatorOffset, endOffset))
    if (locator.u32(0) === ZIP64_LOCATOR) {
      const zip64Offset = locator.u64(8)
      if (zip64Offset + ZIP64_END_SIZE > locatorOffset) throw invalid('a misplaced Zip64 record')
      const zip64 = new Fields(await source.read(zip64Offset, zip64Offset + ZIP64_END_SIZE))
      if (zip64.u32(0) !== ZIP64_END) throw invalid('a missing Zip64 end record')
      if (zip64.u32(16) !== 0 || zip64.u32(20) !== 0) throw invalid('it spans several disks')
      place = {
        count: zip64.u64(32),
        size: zip64.u64(40),
        offset: zip64.u64(48),
        endRecords: zip64Offset,
      }
    }
  }
  if (place.offset + place.size > place.endRecords) {
    throw invalid('the central directory lies outside the archive')
  }
  if (place.size > MAX_DIRECTORY_SIZE) throw invalid('the central directory is too large')
  if (place.count * CENTRAL_HEADER_SIZE > place.size) throw invalid('a truncated directory')
  return place
}

/** §4.5.1: the extra field's blocks by tag, each checked to lie within the field. */
function extraBlocks(extra: Uint8Array): Map<number, Uint8Array> {
  const fields = new Fields(extra)
  const blocks = new Map<number, Uint8Array>()
  for (let at = 0; at + 4 <= extra.length;) {
    const tag = fields.u16(at)
    const length = fields.u16(at + 2)
    if (at + 4 + length > extra.length) throw invalid('a truncated extra field')
    if (!blocks.has(tag)) blocks.set(tag, extra.subarray(at + 4, at + 4 + length))
    at += 4 + length
  }
  return blocks
}

/** §4.5.3: the Zip64 extra holds, in order, only the values whose field reads all ones. */
function applyZip64(
  block: Uint8Array | undefined,
  values: { size: number; compressedSize: number; localHeaderOffset: number },
): void {
  if (block === undefined) return
  const fields = new Fields(block)
  let next = 0
  const take = (): number => {
    if (next + 8 > block.length) throw invalid('a short Zip64 extra field')
    const value = fields.u64(next)
    next += 8
    return value
  }
  if (values.size === U32_MAX) values.size = take()
  if (values.compressedSize === U32_MAX) values.compressedSize = take()
  if (values.localHeaderOffset === U32_MAX) values.localHeaderOffset = take()
}

/**
 * The 0x5455 block's modification time (flags bit 0, then signed Unix seconds), or else
 * §4.4.6's DOS date and time, which carry no zone and are read as local time.
 */
function modifiedTime(block: Uint8Array | undefined, dosTime: number, dosDate: number): Date {
  if (block !== undefined && block.length >= 5 && (block[0]! & 1) !== 0) {
    return new Date(new DataView(block.buffer, block.byteOffset + 1, 4).getInt32(0, true) * 1000)
  }
  return new Date(
    (dosDate >>> 9) + 1980,
    ((dosDate >>> 5) & 0x0f) - 1,
    dosDate & 0x1f,
    dosTime >>> 11,
    (dosTime >>> 5) & 0x3f,
    (dosTime & 0x1f) * 2,
  )
}

/**
 * IBM code page 437 from 0x80 on: the encoding of a name without the UTF-8 flag (§4.4.4, Appendix
 * D). The ASCII half stays ASCII, so control characters remain what they are.
 */
const CP437_HIGH =
  'ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0'

const UTF8_NAMES = new TextDecoder('utf-8')

function decodeName(bytes: Uint8Array, utf8: boolean): string {
  if (utf8 || bytes.every((b) => b < 0x80)) return UTF8_NAMES.decode(bytes)
  let name = ''
  for (const b of bytes) name += b < 0x80 ? String.fromCharCode(b) : CP437_HIGH[b - 0x80]
  return name
}

/** §4.3.12: every central header, checked to point inside the archive before its directory. */
function parseDirectory(bytes: Uint8Array, place: DirectoryPlace): ZipEntryInfo[] {
  const fields = new Fields(bytes)
  const entries: ZipEntryInfo[] = []
  let at = 0
  while (at < bytes.length) {
    if (at + CENTRAL_HEADER_SIZE > bytes.length || fields.u32(at) !== CENTRAL_HEADER) {
      throw invalid('a damaged central directory')
    }
    const nameLength = fields.u16(at + 28)
    const extraLength = fields.u16(at + 30)
    const commentLength = fields.u16(at + 32)
    const nameStart = at + CENTRAL_HEADER_SIZE
    const next = nameStart + nameLength + extraLength + commentLength
    if (next > bytes.length) throw invalid('a damaged central directory')
    const values = {
      size: fields.u32(at + 24),
      compressedSize: fields.u32(at + 20),
      localHeaderOffset: fields.u32(at + 42),
    }
    const extraStart = nameStart + nameLength
    const extra = extraBlocks(bytes.subarray(extraStart, extraStart + extraLength))
    applyZip64(extra.get(ZIP64_EXTRA), values)
    const flags = fields.u16(at + 8)
    const path = decodeName(bytes.subarray(nameStart, extraStart), (flags & FLAG_UTF8) !== 0)
    const entry: ZipEntryInfo = {
      index: entries.length,
      path,
      directory: path.endsWith('/'),
      method: fields.u16(at + 10),
      encrypted: (flags & FLAG_ENCRYPTED) !== 0,
      crc32: fields.u32(at + 16),
      ...values,
      versionMadeBy: fields.u16(at + 4),
      externalAttributes: fields.u32(at + 38),
      modified: modifiedTime(extra.get(UNIX_TIME_EXTRA), fields.u16(at + 12), fields.u16(at + 14)),
    }
    const dataEnd = entry.localHeaderOffset + LOCAL_HEADER_SIZE + entry.compressedSize
    if (dataEnd > place.offset) throw invalid(`entry ${path} lies outside the archive`)
    entries.push(entry)
    at = next
  }
  // A count that overflowed 16 bits without a Zip64 record wraps; the Zip64 count is exact.
  if (entries.length !== place.count && entries.length % (U16_MAX + 1) !== place.count) {
    throw invalid('the directory holds another number of entries than its end record says')
  }
  return entries
}

/** Lists an archive's entries from its end records and central directory alone. */
export async function readZipDirectory(source: ArchiveBytes): Promise<ZipDirectory> {
  const place = await placeDirectory(source)
  const bytes = await source.read(place.offset, place.offset + place.size)
  return { entries: parseDirectory(bytes, place), directoryOffset: place.offset }
}

/** Whether `openZipEntry` can open the entry: a file, not encrypted, stored or deflated. */
export function canOpenZipEntry(entry: ZipEntryInfo): boolean {
  return (
    !entry.directory &&
    !entry.encrypted &&
    (entry.method === METHOD_STORED || entry.method === METHOD_DEFLATED)
  )
}

/**
 * `plain` counted and checksummed as it passes, erroring when it is not the stored bytes. An error
 * of the inflater (whatever the runtime's DecompressionStream throws) names the entry as damaged;
 * one of the source itself (`sourceFailure`) passes unchanged.
 */
function checked(
  entry: ZipEntryInfo,
  plain: ReadableStream<Uint8Array>,
  sourceFailure: () => unknown,
): ReadableStream<Uint8Array> {
  const reader = plain.getReader()
  let count = 0
  let crc = 0
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next: ReadableStreamReadResult<Uint8Array>
      try {
        next = await reader.read()
      } catch (error) {
        if (entry.method !== METHOD_DEFLATED || error === sourceFailure()) throw error
        throw damaged(entry, 'cannot be read: its deflate data is broken')
      }
      if (next.done) {
        if (count !== entry.size) throw damaged(entry, 'holds fewer bytes than its size')
        if (crc !== entry.crc32) throw damaged(entry, 'does not match its CRC-32')
        controller.close()
        return
      }
      count += next.value.length
      if (count > entry.size) throw damaged(entry, 'holds more bytes than its size')
      crc = crc32(next.value, crc)
      controller.enqueue(next.value)
    },
    cancel: (reason) => reader.cancel(reason),
  })
}

/** `data` as it is, remembering the error it fails with, if any. */
function watched(data: ReadableStream<Uint8Array>): {
  stream: ReadableStream<Uint8Array>
  failure: () => unknown
} {
  const reader = data.getReader()
  let failure: unknown = undefined
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next: ReadableStreamReadResult<Uint8Array>
      try {
        next = await reader.read()
      } catch (error) {
        failure = error
        throw error
      }
      if (next.done) controller.close()
      else controller.enqueue(next.value)
    },
    cancel: (reason) => reader.cancel(reason),
  })
  return { stream, failure: () => failure }
}

/**
 * The bytes of one file entry, fetching only its local header and data: inflated when deflated,
 * and erroring with BAD_INPUT when they do not match the entry's size and CRC-32.
 */
export async function openZipEntry(
  source: ArchiveBytes,
  directory: ZipDirectory,
  entry: ZipEntryInfo,
): Promise<ReadableStream<Uint8Array>> {
  if (!canOpenZipEntry(entry)) throw damaged(entry, 'cannot be opened here')
  if (entry.method === METHOD_STORED && entry.compressedSize !== entry.size) {
    throw damaged(entry, 'has inconsistent sizes')
  }
  const offset = entry.localHeaderOffset
  const header = new Fields(await source.read(offset, offset + LOCAL_HEADER_SIZE))
  if (header.u32(0) !== LOCAL_HEADER) throw damaged(entry, 'has no local header')
  // §4.3.7: the local header's own name and extra lengths, which may differ from the central's.
  const start = offset + LOCAL_HEADER_SIZE + header.u16(26) + header.u16(28)
  const end = start + entry.compressedSize
  if (end > directory.directoryOffset) throw damaged(entry, 'runs past the end of its data')
  const data = watched(source.stream(start, end))
  const plain =
    entry.method === METHOD_DEFLATED
      ? data.stream.pipeThrough(
          new DecompressionStream('deflate-raw') as unknown as TransformStream<
            Uint8Array,
            Uint8Array
          >,
        )
      : data.stream
  return checked(entry, plain, data.failure)
}
