/**
 * A file request end to end with the protocol package's real cryptography over chunked HTTP: the
 * requester creates a password-protected request, a sender uploads two files and a note, and the
 * requester opens the inbox with the inbox link and the password and decrypts everything (spec:
 * File requests; docs/crypto.md, File requests). Also what a server that swaps briefs achieves.
 * Run for each storage backend by request-flow.dialects.test.ts and integration.s3.test.ts.
 */
import { randomBytes } from 'node:crypto'

import {
  buildLink,
  createDecryptStream,
  createEncryptStream,
  createRequest,
  decryptMetadata,
  deriveInboxAccess,
  deriveUploadKeys,
  deriveUploadToken,
  encryptMetadata,
  encryptedSize,
  fromBase64Url,
  generateSecret,
  generateUploadSalt,
  isProtocolError,
  lockSecret,
  openBrief,
  openVault,
  parseLink,
  toBase64Url,
  unlockSecret,
  unwrapUploadSecret,
  wrapUploadSecret,
  PASSWORD_ALGO,
  type CreatedRequest,
  type FileMetadata,
  type InboxResponse,
  type FileRequestResponse,
} from '@fileshare/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { followDownload, type Backend } from './backends.js'
import { startTestServer, type TestServer } from './harness.js'
import { querySql } from './dialects.js'

const MiB = 1024 * 1024
/** Small chunks, so every upload takes several chunk requests. */
const CHUNK = 256 * 1024

async function api(
  server: TestServer,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: BodyInit,
): Promise<Response> {
  return fetch(`${server.url}/api${path}`, { method, headers, ...(body ? { body } : {}) })
}

async function pipe(
  bytes: Uint8Array,
  transform: TransformStream<Uint8Array, Uint8Array>,
): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(transform)
  return new Uint8Array(await new Response(stream).arrayBuffer())
}

interface NewRequest {
  id: string
  created: CreatedRequest
}

async function newRequest(server: TestServer, hasPassword: boolean): Promise<NewRequest> {
  const created = await createRequest({ message: 'Your tax papers, please', acceptsNote: true })
  const res = await api(
    server,
    'POST',
    '/request',
    { 'Content-Type': 'application/json' },
    JSON.stringify({
      ...created.fields,
      expireSec: 86400,
      maxUploads: 10,
      maxSize: 8 * MiB,
      downloads: 3,
      hasPassword,
    }),
  )
  expect(res.status, await res.clone().text()).toBe(201)
  const { id } = (await res.json()) as { id: string }
  return { id, created }
}

/** The sender's side: reads the brief through the upload link and uploads one item. */
async function sendItem(
  server: TestServer,
  requestLink: string,
  plain: Uint8Array,
  metadata: FileMetadata,
): Promise<string> {
  const { link } = parseLink(requestLink)
  const uploadToken = await deriveUploadToken(link.secret)
  const read = await api(server, 'GET', `/request/${link.id}`, { 'X-Upload-Token': uploadToken })
  expect(read.status).toBe(200)
  const request = (await read.json()) as FileRequestResponse
  const { publicKey } = await openBrief(link.secret, {
    ciphertext: fromBase64Url(request.brief.ciphertext),
    nonce: fromBase64Url(request.brief.nonce),
  })

  const secret = generateSecret()
  const salt = generateUploadSalt()
  const keys = await deriveUploadKeys(secret, salt)
  const ciphertext = await pipe(plain, createEncryptStream(keys.fileKey))
  expect(ciphertext.length).toBe(encryptedSize(plain.length))
  expect(ciphertext.length).toBeLessThanOrEqual(request.maxUploadSize)

  const init = await api(server, 'POST', `/request/${link.id}/upload/init`, {
    'X-Upload-Token': uploadToken,
    'X-Salt': toBase64Url(salt),
    'X-Content-Length': String(ciphertext.length),
    'X-File-Count': String(metadata.files.length),
  })
  expect(init.status).toBe(201)
  const { id: uploadId } = (await init.json()) as { id: string }
  for (let at = 0, index = 0; at < ciphertext.length; at += CHUNK, index++) {
    const res = await api(
      server,
      'POST',
      `/request/${link.id}/upload/${uploadId}/chunk?index=${index}`,
      {},
      ciphertext.slice(at, at + CHUNK),
    )
    expect(res.status).toBe(200)
  }
  const meta = await encryptMetadata(keys.metaKey, metadata)
  const wrap = await wrapUploadSecret(publicKey, link.id, uploadId, secret)
  const done = await api(
    server,
    'POST',
    `/request/${link.id}/upload/${uploadId}/finalize`,
    { 'Content-Type': 'application/json' },
    JSON.stringify({
      wrapEnc: toBase64Url(wrap.wrapEnc),
      wrapCiphertext: toBase64Url(wrap.wrapCiphertext),
      encryptedMeta: toBase64Url(meta.ciphertext),
      metaNonce: toBase64Url(meta.nonce),
    }),
  )
  expect(done.status).toBe(200)
  return uploadId
}

function sealedBrief(inbox: { brief: { ciphertext: string; nonce: string } }) {
  return {
    ciphertext: fromBase64Url(inbox.brief.ciphertext),
    nonce: fromBase64Url(inbox.brief.nonce),
  }
}

export function requestFlowSuite(backend: Backend): void {
  describe(`a file request with real cryptography on ${backend.name}`, () => {
    let server: TestServer

    beforeAll(async () => {
      server = await startTestServer({ env: backend.env() })
    })
    afterAll(() => server.close())

    it('carries two files and a note from a sender to the requester, byte for byte', async () => {
      const password = 'correct horse battery staple'
      const { id, created } = await newRequest(server, true)
      const lock = await lockSecret(created.inboxSecret, password)
      const requestLink = buildLink(server.url, {
        kind: 'request',
        id,
        secret: created.uploadSecret,
      })
      const inboxLink = buildLink(server.url, {
        kind: 'inbox',
        id,
        secret: lock.protectedSecret,
        passwordSalt: lock.passwordSalt,
      })

      const items = [
        {
          plain: randomBytes(MiB + 12_345),
          metadata: {
            archive: false,
            files: [{ name: 'return-2024.pdf', type: 'application/pdf', size: MiB + 12_345 }],
          },
        },
        {
          plain: randomBytes(3 * MiB),
          metadata: {
            archive: false,
            files: [{ name: 'receipts.zip', type: 'application/zip', size: 3 * MiB }],
          },
        },
        {
          plain: new TextEncoder().encode('Both files are in, the receipts are zipped.'),
          metadata: {
            archive: false,
            kind: 'note' as const,
            files: [{ name: 'note.txt', type: 'text/plain', size: 43 }],
          },
        },
      ]
      const sent = new Map<string, (typeof items)[number]>()
      for (const item of items)
        sent.set(await sendItem(server, requestLink, item.plain, item.metadata), item)

      // The requester has only the inbox link and the password.
      const { link } = parseLink(inboxLink)
      expect(link.kind).toBe('inbox')
      if (link.kind !== 'inbox' || !link.passwordSalt)
        throw new Error('expected a protected inbox link')
      const protectedLock = {
        protectedSecret: link.secret,
        passwordSalt: link.passwordSalt,
        passwordAlgo: PASSWORD_ALGO,
      }
      const openInbox = async (secret: Uint8Array) => {
        const access = await deriveInboxAccess(secret)
        const res = await api(server, 'GET', `/inbox/${link.id}`, {
          'X-Inbox-Token': access.inboxToken,
        })
        if (res.status === 404) return false
        expect(res.status).toBe(200)
        return { access, inbox: (await res.json()) as InboxResponse }
      }
      await expect(unlockSecret(protectedLock, 'wrong password', openInbox)).rejects.toMatchObject({
        code: 'WRONG_PASSWORD',
      })
      const { secret, result } = await unlockSecret(protectedLock, password, openInbox)
      const { access, inbox } = result
      expect(inbox).toMatchObject({ hasPassword: true, usedUploads: 3 })
      expect(inbox.uploads).toHaveLength(3)

      const vault = await openVault(
        secret,
        { ciphertext: fromBase64Url(inbox.vault), nonce: fromBase64Url(inbox.vaultNonce) },
        sealedBrief(inbox),
      )
      expect(toBase64Url(vault.uploadSecret)).toBe(toBase64Url(created.uploadSecret))
      const { brief } = await openBrief(vault.uploadSecret, sealedBrief(inbox))
      expect(brief).toEqual({ message: 'Your tax papers, please', acceptsNote: true })

      for (const entry of inbox.uploads) {
        const item = sent.get(entry.id)!
        const wrap = {
          wrapEnc: fromBase64Url(entry.wrapEnc),
          wrapCiphertext: fromBase64Url(entry.wrapCiphertext),
        }
        const uploadSecret = await unwrapUploadSecret(vault.keyPair, link.id, entry.id, wrap)
        // The wrap is bound to its upload: under another upload's id it does not open.
        const elsewhere = inbox.uploads.find((other) => other.id !== entry.id)!.id
        await expect(
          unwrapUploadSecret(vault.keyPair, link.id, elsewhere, wrap),
        ).rejects.toMatchObject({ code: 'DECRYPT_FAILED' })

        const keys = await deriveUploadKeys(uploadSecret, fromBase64Url(entry.salt))
        const metadata = await decryptMetadata(keys.metaKey, {
          ciphertext: fromBase64Url(entry.encryptedMeta),
          nonce: fromBase64Url(entry.metaNonce),
        })
        expect(metadata).toEqual(item.metadata)
        const file = await followDownload(
          server,
          await api(server, 'GET', `/inbox/${link.id}/file/${entry.id}`, {
            'X-Inbox-Token': access.inboxToken,
          }),
        )
        expect(file.status).toBe(200)
        const ciphertext = new Uint8Array(await file.arrayBuffer())
        const plain = await pipe(ciphertext, createDecryptStream(keys.fileKey))
        expect(Buffer.from(plain).equals(Buffer.from(item.plain))).toBe(true)
      }
    }, 30_000)

    it('lets neither side be fooled by a server that serves one request’s brief under another', async () => {
      const victim = await newRequest(server, false)
      const other = await newRequest(server, false)
      const victimUploadToken = await deriveUploadToken(victim.created.uploadSecret)
      const victimAccess = await deriveInboxAccess(victim.created.inboxSecret)
      const readBrief = async () => {
        const res = await api(server, 'GET', `/request/${victim.id}`, {
          'X-Upload-Token': victimUploadToken,
        })
        return sealedBrief((await res.json()) as FileRequestResponse)
      }
      const readInbox = async () => {
        const res = await api(server, 'GET', `/inbox/${victim.id}`, {
          'X-Inbox-Token': victimAccess.inboxToken,
        })
        return (await res.json()) as InboxResponse
      }
      const openVictimVault = (inbox: InboxResponse) =>
        openVault(
          victim.created.inboxSecret,
          { ciphertext: fromBase64Url(inbox.vault), nonce: fromBase64Url(inbox.vaultNonce) },
          sealedBrief(inbox),
        )

      // Served honestly, both sides open what they are given.
      await openBrief(victim.created.uploadSecret, await readBrief())
      await openVictimVault(await readInbox())

      // The server now serves the other request's brief under the victim's id.
      await querySql(
        server.service.db,
        `UPDATE file_requests SET (brief_ciphertext, brief_nonce) =
         (SELECT brief_ciphertext, brief_nonce FROM file_requests WHERE id = ?) WHERE id = ?`,
        [other.id, victim.id],
      )
      const swapped = await readBrief()
      expect(toBase64Url(swapped.ciphertext)).toBe(other.created.fields.brief.ciphertext)

      const senderError: unknown = await openBrief(victim.created.uploadSecret, swapped).catch(
        (error: unknown) => error,
      )
      expect(isProtocolError(senderError, 'DECRYPT_FAILED')).toBe(true)
      const requesterError: unknown = await openVictimVault(await readInbox()).catch(
        (error: unknown) => error,
      )
      expect(isProtocolError(requesterError, 'DECRYPT_FAILED')).toBe(true)
    })
  })
}
