/**
 * The command line never builds a path from an id the server answered unless it is a UUID: a
 * fake server lists an inbox upload whose id is `../../x` (wrapped and encrypted correctly for
 * that id), and `inbox get --all` fails without writing anything outside its folder.
 */
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import {
  buildLink,
  createEncryptStream,
  createRequest,
  deriveUploadKeys,
  encryptMetadata,
  encryptedSize,
  generateSecret,
  openBrief,
  randomBytes,
  toBase64Url,
  wrapUploadSecret,
  fromBase64Url,
} from '@fileshare/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { newHome, runCli } from './cli-runner.js'
import { sendJson, startFakeServer, type FakeServer } from './fake-server.js'

const REQUEST_ID = '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b'
const BAD_ID = '../../x'
const CONTENT = 'planted by the server\n'

let server: FakeServer
let inboxLink: string
let root: string

/** An inbox whose one upload, named planted.txt, is sealed for the id `BAD_ID`. */
async function fakeInbox(baseUrl: () => string) {
  const created = await createRequest({ message: 'send it', acceptsNote: false })
  const { publicKey } = await openBrief(created.uploadSecret, {
    ciphertext: fromBase64Url(created.fields.brief.ciphertext),
    nonce: fromBase64Url(created.fields.brief.nonce),
  })
  const secret = generateSecret()
  const salt = randomBytes(32)
  const keys = await deriveUploadKeys(secret, salt)
  const wrap = await wrapUploadSecret(publicKey, REQUEST_ID, BAD_ID, secret)
  const plain = new TextEncoder().encode(CONTENT)
  const meta = await encryptMetadata(keys.metaKey, {
    archive: false,
    files: [{ name: 'planted.txt', type: 'text/plain', size: plain.length }],
  })
  const sealed = new Blob([plain]).stream().pipeThrough(createEncryptStream(keys.fileKey))
  const ciphertext = Buffer.from(await new Response(sealed).arrayBuffer())
  expect(ciphertext.length).toBe(encryptedSize(plain.length))
  const now = Date.now()
  const listing = {
    vault: created.fields.vault,
    vaultNonce: created.fields.vaultNonce,
    brief: created.fields.brief,
    hasPassword: false,
    open: true,
    closesAt: new Date(now + 3_600_000).toISOString(),
    createdAt: new Date(now).toISOString(),
    maxUploads: 1,
    maxSize: 1024 * 1024,
    usedUploads: 1,
    usedBytes: ciphertext.length,
    uploads: [
      {
        id: BAD_ID,
        size: ciphertext.length,
        fileCount: 1,
        salt: toBase64Url(salt),
        wrapEnc: toBase64Url(wrap.wrapEnc),
        wrapCiphertext: toBase64Url(wrap.wrapCiphertext),
        encryptedMeta: toBase64Url(meta.ciphertext),
        metaNonce: toBase64Url(meta.nonce),
        downloadCount: 0,
        maxDownloads: 1,
        expiresAt: new Date(now + 3_600_000).toISOString(),
        createdAt: new Date(now).toISOString(),
      },
    ],
  }
  const link = () =>
    buildLink(baseUrl(), { kind: 'inbox', id: REQUEST_ID, secret: created.inboxSecret })
  return { listing, ciphertext, link }
}

beforeAll(async () => {
  let url = ''
  const inbox = await fakeInbox(() => url)
  server = await startFakeServer((request, response) => {
    const path = request.url ?? ''
    if (path === `/api/inbox/${REQUEST_ID}`) return sendJson(response, inbox.listing)
    if (path.startsWith(`/api/inbox/${REQUEST_ID}/file/`)) {
      response
        .writeHead(200, {
          'Content-Type': 'application/octet-stream',
          'Content-Length': String(inbox.ciphertext.length),
          'X-File-Count': '1',
        })
        .end(inbox.ciphertext)
      return
    }
    sendJson(response, { error: 'Not found' }, 404)
  })
  url = server.url
  inboxLink = inbox.link()
  root = await mkdtemp(join(tmpdir(), 'fileshare-server-ids-'))
})

afterAll(async () => {
  await server?.close()
  if (root) await rm(root, { recursive: true, force: true })
})

describe('ids from the server', () => {
  it('security: an inbox entry id that is not a UUID writes nothing outside the target', async () => {
    const home = await newHome()
    const work = join(root, 'home', 'work')
    await mkdir(work, { recursive: true })
    const result = await runCli(['inbox', 'get', inboxLink, '--all', '-o', 'out'], {
      cwd: work,
      env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config') },
    })
    await rm(home, { recursive: true, force: true })
    expect(result.stderr).toContain('The server answered with an invalid inbox entry id')
    expect(result.code).not.toBe(0)
    // `out/../../x` would be <root>/home/x: nothing but the working folder may exist.
    expect(await readdir(root)).toEqual(['home'])
    expect(await readdir(join(root, 'home'))).toEqual(['work'])
    expect(await readdir(work)).toEqual([])
    expect(server.seen.some((r) => r.url.includes('/file/'))).toBe(false)
  })
})
