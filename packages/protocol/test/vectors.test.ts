/**
 * Known-answer vectors of format v1 (test/vectors/v1.json): a change of any label, parameter or
 * byte layout breaks these. The second block re-implements the format from docs/crypto.md with
 * node:crypto alone, so the document and the code cannot drift apart.
 */
import { createDecipheriv, createHash, createHmac, hkdfSync } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { fromBase64Url, toBase64Url } from '../src/encoding.js'
import {
  deriveInboxAccess,
  deriveUploadToken,
  openBrief,
  openVault,
  unwrapUploadSecret,
} from '../src/crypto/request.js'
import { deriveNoteKeys, deriveUploadKeys } from '../src/crypto/keys.js'
import { LABELS } from '../src/crypto/labels.js'
import { parseLink } from '../src/crypto/link.js'
import { decryptMetadata } from '../src/crypto/metadata.js'
import { decryptNote } from '../src/crypto/note.js'
import { derivePasswordKey } from '../src/crypto/password.js'
import { createDecryptStream, createEncryptStream } from '../src/crypto/stream.js'
import { RECORD_SIZE } from '../src/sizes.js'
import { collect, pseudoRandomBytes, sameBytes, streamOf } from './streams.js'
import { VECTOR_INPUTS as I } from './vectors/inputs.js'

const V = JSON.parse(readFileSync(new URL('./vectors/v1.json', import.meta.url), 'utf8'))
const unhex = (text: string) => new Uint8Array(Buffer.from(text, 'hex'))
const sha256hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

describe('known-answer vectors of format v1', () => {
  it('record size', () => {
    expect(V.recordSize).toBe(RECORD_SIZE)
  })

  it('upload tokens for 32- and 16-byte salts', async () => {
    const a = await deriveUploadKeys(I.secret, I.salt32)
    const b = await deriveUploadKeys(I.secret, I.salt16)
    expect({ authToken: a.authToken, ownerToken: a.ownerToken }).toEqual(V.upload.salt32)
    expect({ authToken: b.authToken, ownerToken: b.ownerToken }).toEqual(V.upload.salt16)
  })

  it('streamed payload ciphertext', async () => {
    const { fileKey } = await deriveUploadKeys(I.secret, I.salt32)
    const plaintext = pseudoRandomBytes(I.streamPlainSize, I.streamSeed)
    const ciphertext = await collect(streamOf(plaintext).pipeThrough(createEncryptStream(fileKey)))
    expect(ciphertext.length).toBe(V.stream.ciphertextLength)
    expect(sha256hex(ciphertext)).toBe(V.stream.ciphertextSha256)
    const back = await collect(streamOf(ciphertext).pipeThrough(createDecryptStream(fileKey)))
    expect(sameBytes(back, plaintext)).toBe(true)
  })

  it('metadata and note ciphertexts open', async () => {
    const { metaKey } = await deriveUploadKeys(I.secret, I.salt32)
    expect(
      await decryptMetadata(metaKey, {
        nonce: unhex(V.metadata.nonce),
        ciphertext: unhex(V.metadata.ciphertext),
      }),
    ).toEqual(I.metadata)
    const note = await deriveNoteKeys(I.secret, I.salt16)
    expect(note.authToken).toBe(V.note.authToken)
    expect(note.ownerToken).toBe(V.note.ownerToken)
    const sealed = { nonce: unhex(V.note.nonce), ciphertext: unhex(V.note.ciphertext) }
    expect(await decryptNote(note.contentKey, sealed, I.noteType)).toBe(I.noteText)
  })

  it('argon2id-v2 password key', async () => {
    expect(Buffer.from(await derivePasswordKey(I.password, I.passwordSalt)).toString('hex')).toBe(
      V.password.passwordKey,
    )
  })

  it('request tokens, brief, vault and key wrap', async () => {
    const uploadSecret = unhex(V.request.uploadSecret)
    const inboxSecret = unhex(V.request.inboxSecret)
    const f = V.request.fields
    expect(await deriveUploadToken(uploadSecret)).toBe(f.uploadToken)
    expect(await deriveInboxAccess(inboxSecret)).toEqual({
      inboxToken: f.inboxAuthToken,
      inboxOwnerToken: f.inboxOwnerToken,
    })
    const brief = {
      ciphertext: fromBase64Url(f.brief.ciphertext),
      nonce: fromBase64Url(f.brief.nonce),
    }
    expect((await openBrief(uploadSecret, brief)).brief).toEqual(I.brief)
    const vault = await openVault(
      inboxSecret,
      { ciphertext: fromBase64Url(f.vault), nonce: fromBase64Url(f.vaultNonce) },
      brief,
    )
    const wrap = {
      wrapEnc: fromBase64Url(V.request.wrapEnc),
      wrapCiphertext: fromBase64Url(V.request.wrapCiphertext),
    }
    expect(await unwrapUploadSecret(vault.keyPair, I.requestId, I.uploadId, wrap)).toEqual(I.secret)
  })

  it('links', () => {
    expect(parseLink(V.links.file).link).toEqual({
      kind: 'file',
      id: I.uploadId,
      secret: I.secret,
      hasPassword: false,
    })
    expect(parseLink(V.links.inbox).link).toEqual({
      kind: 'inbox',
      id: I.requestId,
      secret: I.secret,
      passwordSalt: I.passwordSalt,
    })
  })
})

describe('the format as docs/crypto.md describes it, with node:crypto alone', () => {
  const hkdf = (ikm: Uint8Array, salt: Uint8Array, label: string) =>
    new Uint8Array(hkdfSync('sha256', ikm, salt, Buffer.from(label, 'utf8'), 32))

  it('tokens', () => {
    const authKey = hkdf(I.secret, I.salt32, LABELS.uploadAuthKey)
    const authToken = createHmac('sha256', authKey).update(LABELS.uploadAuthToken, 'utf8').digest()
    expect(toBase64Url(authToken)).toBe(V.upload.salt32.authToken)
    expect(toBase64Url(hkdf(I.secret, I.salt32, LABELS.uploadOwnerToken))).toBe(
      V.upload.salt32.ownerToken,
    )
    const uploadSecret = unhex(V.request.uploadSecret)
    expect(toBase64Url(hkdf(uploadSecret, new Uint8Array(0), LABELS.requestUploadToken))).toBe(
      V.request.fields.uploadToken,
    )
  })

  it('records: AES-256-GCM, nonce = 11-byte counter || last flag, no additional data', async () => {
    const fileKey = hkdf(I.secret, I.salt32, LABELS.uploadFileKey)
    const { fileKey: webKey } = await deriveUploadKeys(I.secret, I.salt32)
    const ciphertext = await collect(
      streamOf(pseudoRandomBytes(I.streamPlainSize, I.streamSeed)).pipeThrough(
        createEncryptStream(webKey),
      ),
    )
    const plain: Buffer[] = []
    const stride = RECORD_SIZE + 16
    const count = Math.ceil(ciphertext.length / stride)
    for (let i = 0; i < count; i++) {
      const record = ciphertext.subarray(i * stride, Math.min(ciphertext.length, (i + 1) * stride))
      const nonce = Buffer.alloc(12)
      nonce.writeUIntBE(i, 5, 6)
      nonce[11] = i === count - 1 ? 1 : 0
      const decipher = createDecipheriv('aes-256-gcm', fileKey, nonce)
      decipher.setAuthTag(record.subarray(record.length - 16))
      plain.push(decipher.update(record.subarray(0, record.length - 16)), decipher.final())
    }
    expect(
      sameBytes(Buffer.concat(plain), pseudoRandomBytes(I.streamPlainSize, I.streamSeed)),
    ).toBe(true)
  })

  it('metadata: AES-256-GCM with the label as additional data, padded with 0x80 0x00…', () => {
    const metaKey = hkdf(I.secret, I.salt32, LABELS.uploadMetaKey)
    const ciphertext = unhex(V.metadata.ciphertext)
    const decipher = createDecipheriv('aes-256-gcm', metaKey, unhex(V.metadata.nonce))
    decipher.setAAD(Buffer.from(LABELS.uploadMetaAad, 'utf8'))
    decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16))
    const padded = Buffer.concat([
      decipher.update(ciphertext.subarray(0, ciphertext.length - 16)),
      decipher.final(),
    ])
    expect(padded.length % 1024).toBe(0)
    const end = padded.lastIndexOf(0x80)
    expect(padded.subarray(end + 1).every((b) => b === 0)).toBe(true)
    expect(JSON.parse(padded.subarray(0, end).toString('utf8'))).toEqual(I.metadata)
  })
})
