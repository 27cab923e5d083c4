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
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(0x0800, 6)
    local.writeUInt16LE(method, 8)
    local.writeUInt16LE(DOS_TIME, 10)
    local.writeUInt16LE(DOS_DATE, 12)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(body.length, 18)
    local.writeUInt32LE(data.length, 22)
    local.writeUInt16LE(name.length, 26)
    local.writeUInt16LE(0, 28)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(((entry.host ?? 3) << 8) | 30, 4)
    central.writeUInt16LE(20, 6)
    central.writeUInt16LE(0x0800, 8)
    central.writeUInt16LE(method, 10)
    central.writeUInt16LE(DOS_TIME, 12)
    central.writeUInt16LE(DOS_DATE, 14)
    central.writeUInt32LE(crc, 16)
    central.writeUInt32LE(body.length, 20)
    central.writeUInt32LE(data.length, 24)
    central.writeUInt16LE(name.length, 28)
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
