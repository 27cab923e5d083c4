/**
 * The client core's plaintext ranges against the real server: one counted download with a read
 * grant, then ranges read under it, each fetched as the sealed records it touches, of an upload
 * and of an inbox file. Properties checked: the bytes are the upload's, exactly one download is
 * counted, and a bounded reader's requests start at one record and double up to its window.
 */
import {
  createFileRequest,
  encryptedSize,
  inspectFile,
  openFileRanges,
  openInbox,
  openInboxFileRanges,
  openRequest,
  parseLink,
  sendFile,
  sendToRequest,
  unlockFile,
  type FileLink,
  type InboxLink,
  type RequestLink,
} from '@fileshare/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { apiFor, drain, loggingFetch, MiB, randomSource, singleFile } from './client-support.js'
import { startTestServer, type TestServer } from './harness.js'

const SIZE = 9 * MiB + 123
const SEALED = MiB + 16

describe('plaintext ranges through the client core', { timeout: 30_000 }, () => {
  let server: TestServer
  let bytes: Uint8Array
  let link: FileLink

  beforeAll(async () => {
    server = await startTestServer()
    const random = randomSource(SIZE)
    bytes = random.bytes
    const sent = await sendFile(apiFor(server), random.source, {
      expireSec: 86_400,
      maxDownloads: 3,
      metadata: singleFile('clip.webm', SIZE, 'video/webm'),
      fileCount: 1,
    })
    const parsed = parseLink(sent.link).link
    if (parsed.kind !== 'file') throw new Error('not a file link')
    link = parsed
  })
  afterAll(async () => {
    await server.close()
  })

  /** Opens the ranges with a logging client; answers them and the Range headers it sent. */
  async function open(windowRecords?: number) {
    const log = loggingFetch()
    const api = apiFor(server, { fetch: log.fetch })
    const unlocked = await unlockFile(api, link, await inspectFile(api, link))
    const ranges = await openFileRanges(api, unlocked, windowRecords ? { windowRecords } : {})
    const asked = () =>
      log.calls.map((call) => call.headers.get('range')).filter((range) => range !== null)
    return { api, ranges, asked }
  }

  it('reads a bounded stream in requests of one record, then twice as many up to the window', async () => {
    const { api, ranges, asked } = await open(4)
    const start = MiB - 5
    const plain = await drain(ranges.stream(start, SIZE))
    expect(plain.equals(Buffer.from(bytes.subarray(start)))).toBe(true)
    const records = (first: number, last: number) =>
      `bytes=${first * SEALED}-${Math.min((last + 1) * SEALED, encryptedSize(SIZE)) - 1}`
    // The counted download asks for one byte; the records follow under its grant.
    expect(asked()).toEqual([
      'bytes=0-0',
      records(0, 0),
      records(1, 2),
      records(3, 6),
      records(7, 9),
    ])
    expect((await inspectFile(api, link)).downloadCount).toBe(1)
  })

  it('reads an unbounded stream in one request, and a range inside one record alone', async () => {
    const { ranges, asked } = await open()
    const plain = await drain(ranges.stream(2 * MiB + 7, 5 * MiB))
    expect(plain.equals(Buffer.from(bytes.subarray(2 * MiB + 7, 5 * MiB)))).toBe(true)
    const tail = await drain(ranges.stream(SIZE - 100, SIZE))
    expect(tail.equals(Buffer.from(bytes.subarray(SIZE - 100)))).toBe(true)
    expect(asked()).toEqual([
      'bytes=0-0',
      `bytes=${2 * SEALED}-${5 * SEALED - 1}`,
      `bytes=${9 * SEALED}-${encryptedSize(SIZE) - 1}`,
    ])
  })

  it('reads an inbox file in ranges under the grant of its counted download, counting once', async () => {
    const api = apiFor(server)
    const created = await createFileRequest(api, {
      message: 'Ranges please',
      expireSec: 86_400,
      maxUploads: 1,
      maxSize: 16 * MiB,
      downloads: 3,
    })
    const opened = await openRequest(api, parseLink(created.uploadLink).link as RequestLink)
    const random = randomSource(SIZE)
    const sent = await sendToRequest(api, opened, random.source, {
      metadata: singleFile('clip.webm', SIZE, 'video/webm'),
      fileCount: 1,
    })
    const inboxLink = parseLink(created.inboxLink).link as InboxLink
    const log = loggingFetch()
    const reader = apiFor(server, { fetch: log.fetch })
    const inbox = await openInbox(reader, inboxLink)
    const ranges = await openInboxFileRanges(reader, inbox, sent.id, { windowRecords: 2 })
    expect(ranges.plainSize).toBe(SIZE)
    expect(ranges.grantExpiresAt).toBeGreaterThan(Date.now())
    const whole = await drain(ranges.stream(0, SIZE))
    expect(whole.equals(Buffer.from(random.bytes))).toBe(true)
    const again = await drain(ranges.stream(3 * MiB + 1, 4 * MiB))
    expect(again.equals(Buffer.from(random.bytes.subarray(3 * MiB + 1, 4 * MiB)))).toBe(true)
    const asked = log.calls.filter((call) => call.headers.get('range') !== null)
    expect(asked.every((call) => call.url.endsWith(`/file/${sent.id}`))).toBe(true)
    expect(asked.length).toBeGreaterThan(3)
    const [entry] = (await openInbox(reader, inboxLink)).entries
    expect(entry!.downloadCount).toBe(1)
  })
})
