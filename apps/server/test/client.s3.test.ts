/**
 * The client core on STORAGE_BACKEND=s3 against a real radosgw: downloads answer a presigned URL,
 * which the client fetches directly, without credentials or any token of ours.
 */
import {
  createFileRequest,
  createZipStream,
  downloadFile,
  downloadInboxFile,
  inspectFile,
  openFileRanges,
  openInbox,
  openInboxFileRanges,
  openRequest,
  openZipEntry,
  parseLink,
  readZipDirectory,
  sendFile,
  sendToRequest,
  unlockFile,
  zipSize,
  type ArchiveEntry,
  type FileLink,
  type InboxLink,
  type RequestLink,
} from '@fileshare/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { radosgwMissing, type Radosgw } from '@fileshare/testing/radosgw'

import { startTestServer, type TestServer } from './harness.js'
import { s3Env, testRadosgw } from './s3-backend.js'
import {
  apiFor,
  drain,
  loggingFetch,
  MiB,
  randomSource,
  singleFile,
  wsFactory,
  type FetchLog,
} from './client-support.js'

const missing = await radosgwMissing()
if (missing) console.warn(missing)

/** The one request that went to S3: a plain GET, no credentials, none of the API's headers. */
function expectBareS3Fetch(log: FetchLog, gateway: Radosgw): void {
  // Security: the presigned URL is fetched without the session, bearer or auth token of the API.
  const s3Calls = log.calls.filter((c) => c.url.startsWith(gateway.endpoint))
  expect(s3Calls).toHaveLength(1)
  const [call] = s3Calls
  expect(call!.method).toBe('GET')
  expect(call!.credentials).toBe('omit')
  expect([...call!.headers.keys()]).toEqual([])
}

// A shared two-core machine runs three Ceph daemons besides the server: slower than a laptop.
describe.skipIf(missing !== null)('the client core on S3', { timeout: 60_000 }, () => {
  let gateway: Radosgw | undefined
  let server: TestServer

  beforeAll(async () => {
    gateway = testRadosgw()
    server = await startTestServer({ env: s3Env(gateway) })
  }, 90_000)
  afterAll(async () => {
    await server?.close()
    await gateway?.stop()
  })

  it('downloads a file through the presigned URL', async () => {
    const log = loggingFetch()
    const api = apiFor(server, { webSocket: wsFactory(), fetch: log.fetch, bearerToken: 'a.b.c' })
    const { bytes, source } = randomSource(7 * MiB + 3)
    const sent = await sendFile(api, source, {
      expireSec: 86_400,
      maxDownloads: 1,
      metadata: singleFile('s3.bin', bytes.length),
      fileCount: 1,
    })
    const link = parseLink(sent.link).link as FileLink
    const unlocked = await unlockFile(api, link, await inspectFile(api, link))
    const download = await downloadFile(api, unlocked)
    expect(download).toMatchObject({ plainSize: bytes.length, fileCount: 1 })
    expect((await drain(download.stream)).equals(Buffer.from(bytes))).toBe(true)
    expectBareS3Fetch(log, gateway!)
  })

  it('hands out no read grant on S3: the presigned URL serves ranges itself', async () => {
    const api = apiFor(server, {})
    const { bytes, source } = randomSource(2 * MiB + 5)
    const sent = await sendFile(api, source, {
      expireSec: 86_400,
      maxDownloads: 2,
      metadata: singleFile('ranges.bin', bytes.length),
      fileCount: 1,
    })
    const link = parseLink(sent.link).link as FileLink
    const unlocked = await unlockFile(api, link, await inspectFile(api, link))
    const res = await fetch(`${server.url}/api/download/${link.id}`, {
      headers: { 'X-Auth-Token': unlocked.keys.authToken, 'X-Read-Grant': 'request' },
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-read-grant')).toBeNull()
    const { url, size } = (await res.json()) as { url: string; size: number }
    const part = await fetch(url, { headers: { Range: 'bytes=100-199' } })
    expect(part.status).toBe(206)
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${size}`)
    expect((await part.arrayBuffer()).byteLength).toBe(100)
  })

  it('reads one entry of an archive by range from the presigned URL, counting one download', async () => {
    // Property: on S3 the parts of an archive come from the presigned URL, not all of it.
    const big = randomSource(6 * MiB).source
    const note = new TextEncoder().encode('inside the archive\n')
    const mtime = new Date(2024, 0, 1)
    const entries: ArchiveEntry[] = [
      { path: 'big.bin', size: big.size, mtime, open: () => big.stream() },
      { path: 'note.txt', size: note.length, mtime, open: () => new Blob([note]).stream() },
    ]
    const api = apiFor(server, { webSocket: wsFactory() })
    const sent = await sendFile(
      api,
      { size: zipSize(entries), stream: () => createZipStream(entries) },
      {
        expireSec: 86_400,
        maxDownloads: 3,
        metadata: {
          archive: true,
          files: entries.map((e) => ({ name: e.path, type: '', size: e.size })),
        },
        fileCount: 2,
      },
    )
    const link = parseLink(sent.link).link as FileLink
    const log = loggingFetch()
    const reader = apiFor(server, { fetch: log.fetch })
    const unlocked = await unlockFile(reader, link, await inspectFile(reader, link))
    const ranges = await openFileRanges(reader, unlocked)
    const directory = await readZipDirectory(ranges)
    expect(directory.entries.map((e) => [e.path, e.size])).toEqual([
      ['big.bin', big.size],
      ['note.txt', note.length],
    ])
    const entry = directory.entries[1]!
    expect(Buffer.from(await drain(await openZipEntry(ranges, directory, entry)))).toEqual(
      Buffer.from(note),
    )
    const s3Calls = log.calls.filter((c) => c.url.startsWith(gateway!.endpoint))
    const fetched = s3Calls.reduce((sum, c) => {
      const [from, to] = (c.headers.get('range') ?? '').slice('bytes='.length).split('-')
      return sum + Number(to) - Number(from) + 1
    }, 0)
    expect(s3Calls.length).toBeGreaterThan(0)
    expect(fetched).toBeLessThan(ranges.cipherSize / 2)
    expect((await inspectFile(reader, link)).downloadCount).toBe(1)
  })

  it('downloads an inbox file through the presigned URL', async () => {
    const log = loggingFetch()
    const api = apiFor(server, { fetch: log.fetch })
    const created = await createFileRequest(api, {
      message: 'S3 please',
      expireSec: 86_400,
      maxUploads: 1,
      maxSize: 16 * MiB,
      downloads: 1,
    })
    const opened = await openRequest(api, parseLink(created.uploadLink).link as RequestLink)
    const { bytes, source } = randomSource(6 * MiB + 11)
    const sent = await sendToRequest(api, opened, source, {
      metadata: singleFile('inbox.bin', bytes.length),
      fileCount: 1,
    })
    const inbox = await openInbox(api, parseLink(created.inboxLink).link as InboxLink)
    const download = await downloadInboxFile(api, inbox, sent.id)
    expect((await drain(download.stream)).equals(Buffer.from(bytes))).toBe(true)
    expectBareS3Fetch(log, gateway!)
  })

  it('reads an inbox file in ranges from the presigned URL, counting once', async () => {
    const api = apiFor(server, { webSocket: wsFactory() })
    const created = await createFileRequest(api, {
      message: 'S3 ranges please',
      expireSec: 86_400,
      maxUploads: 1,
      maxSize: 16 * MiB,
      downloads: 3,
    })
    const opened = await openRequest(api, parseLink(created.uploadLink).link as RequestLink)
    const { bytes, source } = randomSource(5 * MiB + 7)
    const sent = await sendToRequest(api, opened, source, {
      metadata: singleFile('inbox.webm', bytes.length, 'video/webm'),
      fileCount: 1,
    })
    const inboxLink = parseLink(created.inboxLink).link as InboxLink
    const log = loggingFetch()
    const reader = apiFor(server, { fetch: log.fetch })
    const inbox = await openInbox(reader, inboxLink)
    const ranges = await openInboxFileRanges(reader, inbox, sent.id)
    const part = await drain(ranges.stream(2 * MiB + 3, 3 * MiB))
    expect(part.equals(Buffer.from(bytes.subarray(2 * MiB + 3, 3 * MiB)))).toBe(true)
    const s3Calls = log.calls.filter((c) => c.url.startsWith(gateway!.endpoint))
    expect(s3Calls.map((c) => c.headers.get('range')?.startsWith('bytes='))).toEqual([true])
    const [entry] = (await openInbox(reader, inboxLink)).entries
    expect(entry!.downloadCount).toBe(1)
  })
})
