/**
 * A tiny ZIP writer for hand-made archives, hostile ones included: any name, any Unix mode in the
 * external attributes (symbolic links, devices), stored or deflated entries with sizes in the
 * headers, and damaged ones (a wrong checksum, a broken deflate stream).
 */
import { deflateRawSync } from 'node:zlib'

import { crc32 } from '@fileshare/protocol'

export interface FixtureEntry {
  name: string
  data?: Uint8Array | string
  /** Unix st_mode with type bits, stored in the high 16 bits of the external attributes. */
  unixMode?: number
  /** "Version made by" host system: 3 Unix (default), 0 MS-DOS. */
  host?: number
  /** Deflated instead of stored; `deflated` gives the compressed bytes as they are (damaged ones). */
  deflate?: boolean
  deflated?: Uint8Array
  /** The CRC-32 written in the headers, instead of the data's own. */
  crc?: number
}

const DOS_TIME = (12 << 11) | (30 << 5)
const DOS_DATE = ((2024 - 1980) << 9) | (5 << 5) | 17

/**
 * The fields a local header and its central directory record share, from "version needed to
 * extract" to the file name length (APPNOTE 4.3.7 and 4.3.12), written from `at`.
 */
function writeSharedFields(
  header: Buffer,
  at: number,
  f: { method: number; crc: number; compressed: number; size: number; name: number },
): void {
  header.writeUInt16LE(20, at)
  header.writeUInt16LE(0x0800, at + 2)
  header.writeUInt16LE(f.method, at + 4)
  header.writeUInt16LE(DOS_TIME, at + 6)
  header.writeUInt16LE(DOS_DATE, at + 8)
  header.writeUInt32LE(f.crc, at + 10)
  header.writeUInt32LE(f.compressed, at + 14)
  header.writeUInt32LE(f.size, at + 18)
  header.writeUInt16LE(f.name, at + 22)
}

export function buildZip(entries: readonly FixtureEntry[]): Buffer {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8')
    const data =
      typeof entry.data === 'string' ? Buffer.from(entry.data) : Buffer.from(entry.data ?? [])
    const crc = entry.crc ?? crc32(data)
    const method = entry.deflate || entry.deflated ? 8 : 0
    const body = entry.deflated
      ? Buffer.from(entry.deflated)
      : method === 8
        ? deflateRawSync(data)
        : data
    const mode = entry.unixMode ?? (entry.name.endsWith('/') ? 0o040755 : 0o100644)
    const shared = { method, crc, compressed: body.length, size: data.length, name: name.length }
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    writeSharedFields(local, 4, shared)
    local.writeUInt16LE(0, 28)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(((entry.host ?? 3) << 8) | 30, 4)
    writeSharedFields(central, 6, shared)
    central.writeUInt32LE(((mode & 0xffff) << 16) >>> 0, 38)
    central.writeUInt32LE(offset, 42)
    locals.push(local, name, body)
    centrals.push(central, name)
    offset += local.length + name.length + body.length
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(entries.length, 8)
  end.writeUInt16LE(entries.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}
