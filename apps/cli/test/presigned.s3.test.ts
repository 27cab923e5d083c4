/**
 * Downloads from the S3 backend: the server answers a presigned URL and the command fetches the
 * ciphertext from the bucket directly (real radosgw), for shared files and inbox uploads alike.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { radosgwMissing, startRadosgw, type Radosgw } from '@fileshare/testing/radosgw'

import { CliUser } from './cli-runner.js'
import { MiB, snapshot, sha256File, writeRandomFile } from './files.js'
import { startTestServer, type TestServer } from './server.js'

const missing = await radosgwMissing()
if (missing) console.warn(missing)

describe.skipIf(missing !== null)('on S3', () => {
  let gateway: Radosgw
  let server: TestServer
  let user: CliUser
  let work: string

  beforeAll(async () => {
    gateway = await startRadosgw()
    server = await startTestServer({
      STORAGE_BACKEND: 's3',
      S3_ENDPOINT: gateway.endpoint,
      S3_REGION: gateway.region,
      S3_BUCKET: `fileshare-cli-${randomBytes(4).toString('hex')}`,
      S3_ACCESS_KEY_ID: gateway.accessKeyId,
      S3_SECRET_ACCESS_KEY: gateway.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
      S3_PART_SIZE: String(5 * MiB),
    })
    user = await CliUser.create(server.url)
    work = await mkdtemp(join(tmpdir(), 'fileshare-cli-s3-'))
  }, 180_000)

  afterAll(async () => {
    await server?.close()
    await gateway?.stop()
    await rm(work, { recursive: true, force: true })
    if (user) await rm(user.home, { recursive: true, force: true })
  })

  it('sends a folder and gets it back through a presigned URL', async () => {
    const source = join(work, 'src', 'album')
    await mkdir(join(source, 'raw'), { recursive: true })
    await writeRandomFile(join(source, 'raw', 'one.cr2'), 12 * MiB + 5)
    await writeFile(join(source, 'list.txt'), 'one\n')
    const sent = await user.json<{ link: string; transport: string }>(['send', source])
    // Nothing is stored in DATA_DIR: the blob went to the bucket.
    expect(await readdir(server.dataDir)).not.toContain('blobs')

    const out = join(work, 'out')
    await user.ok(['get', sent.link, '-o', out])
    expect(await snapshot(join(out, 'album'))).toEqual(await snapshot(source))
  })

  it('downloads an inbox upload from the bucket', async () => {
    const created = await user.json<{ uploadLink: string; inboxLink: string }>([
      'request',
      '--message',
      'for the bucket',
    ])
    const file = join(work, 'scan.pdf')
    await writeRandomFile(file, 7 * MiB)
    await user.ok(['request', 'send', created.uploadLink, file])
    const out = join(work, 'inbox-out')
    const got = await user.getWholeInbox(created.inboxLink, out)
    expect(got.entries).toHaveLength(1)
    expect(await sha256File(got.entries[0]!.paths[0]!)).toBe(await sha256File(file))
  })
})
