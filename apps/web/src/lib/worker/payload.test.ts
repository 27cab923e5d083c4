/**
 * The picked files as the worker sends them (payloadOf), read again for a resumed upload: a
 * `File` overwritten meanwhile with its size and time kept (which a browser reads without
 * complaint) fails with SOURCE_CHANGED naming it, alone or inside the archive, before a byte of
 * its new content is sealed again; an unchanged one gives the same ciphertext again.
 */
import {
  ciphertextFrom,
  deriveUploadKeys,
  RECORD_SIZE,
  RECORD_TAG_SIZE,
  recordCount,
  SealedRecords,
} from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import { fromFiles, withParentDirs, type PickedEntry } from '../upload/entries'
import { payloadOf } from './methods'

const MTIME = Date.parse('2024-05-06T07:08:10.000Z')
const SEALED = RECORD_SIZE + RECORD_TAG_SIZE

function bytes(length: number, seed: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(length)
  let x = seed
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0
    out[i] = x >>> 24
  }
  return out
}

/** A picked file whose bytes on disk the test overwrites, its size and time kept. */
function pickedFile(name: string, content: Uint8Array<ArrayBuffer>) {
  let current = content
  class PickedFile extends File {
    override slice(start?: number, end?: number, type?: string): Blob {
      return new Blob([current.slice(start, end)], type === undefined ? {} : { type })
    }
    override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
      return new Blob([current]).stream()
    }
  }
  return {
    file: new PickedFile([content], name, { lastModified: MTIME }),
    overwrite: (next: Uint8Array<ArrayBuffer>) => {
      current = next
    },
  }
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer())
}

/** The ciphertext of the picked entries from any offset, with the tags of every read kept. */
async function cipherOf(entries: PickedEntry[]) {
  const { fileKey } = await deriveUploadKeys(bytes(32, 1), bytes(32, 2))
  const { source } = payloadOf(entries, 0)
  return ciphertextFrom(source, fileKey, { sealed: new SealedRecords(recordCount(source.size)) })
}

describe('a picked file read again', () => {
  it('gives the same ciphertext when unchanged, and is refused by name once overwritten', async () => {
    const picked = pickedFile('report.pdf', bytes(3 * RECORD_SIZE + 5, 3))
    const from = await cipherOf(fromFiles([picked.file]))
    const full = await collect(from(0))
    const again = await collect(from(SEALED + 7))
    // Compared as one buffer: a deep comparison walks megabytes byte by byte.
    expect(Buffer.compare(again, full.subarray(SEALED + 7))).toBe(0)

    picked.overwrite(bytes(3 * RECORD_SIZE + 5, 4))
    await expect(collect(from(SEALED + 7))).rejects.toMatchObject({
      code: 'SOURCE_CHANGED',
      subject: 'report.pdf',
      message: 'report.pdf changed while it was being sent; send it again',
    })
  })
})

describe('a picked folder read again', () => {
  it('names the file of the archive that was overwritten', async () => {
    const one = pickedFile('album/one.bin', bytes(2 * RECORD_SIZE, 5))
    const two = pickedFile('album/two.bin', bytes(2 * RECORD_SIZE, 6))
    const entries = withParentDirs(
      [one, two].map(({ file }) => ({
        path: file.name,
        size: file.size,
        lastModified: file.lastModified,
        file,
      })),
    )
    const from = await cipherOf(entries)
    await collect(from(0))
    two.overwrite(bytes(2 * RECORD_SIZE, 7))
    // Record 3 lies within two.bin alone.
    await expect(collect(from(3 * SEALED))).rejects.toMatchObject({
      code: 'SOURCE_CHANGED',
      subject: 'album/two.bin',
    })
  })
})
