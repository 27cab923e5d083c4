/**
 * A downloaded archive read in place on the server: yauzl's reader over the plaintext ranges of
 * a file (`FileRanges`, one counted download and its read grant), so that listing reads only
 * the end of central directory, the Zip64 records and the directory, and extracting chosen
 * entries reads only their local headers and data. Touches nothing on disk.
 */
import { Readable } from 'node:stream'
import type { ReadableStream as NodeWebStream } from 'node:stream/web'

import type { FileRanges } from '@fileshare/protocol'
import type { ZipFile } from 'yauzl'

import { openZipChecked } from './extract.js'

/** Reads up to this size come whole from cached records: headers and directory entries. */
const SMALL_READ = 64 * 1024

export async function openRemoteZip(ranges: FileRanges): Promise<ZipFile> {
  const { default: yauzl } = await import('yauzl')
  class RangeReader extends yauzl.RandomAccessReader {
    override _readStreamForRange(start: number, end: number): Readable {
      if (end - start <= SMALL_READ) {
        return Readable.from(
          (async function* () {
            yield Buffer.from(await ranges.read(start, end))
          })(),
        )
      }
      return Readable.fromWeb(ranges.stream(start, end) as NodeWebStream<Uint8Array>)
    }
  }
  return openZipChecked((options) =>
    yauzl.fromRandomAccessReaderPromise(new RangeReader(), ranges.plainSize, options),
  )
}
