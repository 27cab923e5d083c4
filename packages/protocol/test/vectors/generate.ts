/**
 * Writes the known-answer vectors of format v1 to v1.json. Run only when the format changes on
 * purpose (`pnpm --filter @fileshare/protocol exec tsx test/vectors/generate.ts`): the vectors
 * test exists to fail when a label, a parameter or a byte layout changes by accident.
 */
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { toBase64Url } from '../../src/encoding.js'
import { deriveNoteKeys, deriveUploadKeys } from '../../src/crypto/keys.js'
import { buildLink } from '../../src/crypto/link.js'
import { encryptMetadata } from '../../src/crypto/metadata.js'
import { encryptNote } from '../../src/crypto/note.js'
import { derivePasswordKey } from '../../src/crypto/password.js'
import { createRequest, openBrief, wrapUploadSecret } from '../../src/crypto/request.js'
import { createEncryptStream } from '../../src/crypto/stream.js'
import { RECORD_SIZE } from '../../src/sizes.js'
import { collect, pseudoRandomBytes, streamOf } from '../streams.js'
import { VECTOR_INPUTS as I } from './inputs.js'

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')

const upload32 = await deriveUploadKeys(I.secret, I.salt32)
const upload16 = await deriveUploadKeys(I.secret, I.salt16)
const note = await deriveNoteKeys(I.secret, I.salt16)

const plaintext = pseudoRandomBytes(I.streamPlainSize, I.streamSeed)
const ciphertext = await collect(
  streamOf(plaintext).pipeThrough(createEncryptStream(upload32.fileKey)),
)

const meta = await encryptMetadata(upload32.metaKey, I.metadata)
const noteSealed = await encryptNote(note.contentKey, I.noteText, I.noteType)

const request = await createRequest(I.brief)
const { publicKey } = await openBrief(request.uploadSecret, {
  ciphertext: Buffer.from(request.fields.brief.ciphertext, 'base64url'),
  nonce: Buffer.from(request.fields.brief.nonce, 'base64url'),
})
const wrap = await wrapUploadSecret(publicKey, I.requestId, I.uploadId, I.secret)

const vectors = {
  format: 'fileshare/v1',
  recordSize: RECORD_SIZE,
  upload: {
    salt32: { authToken: upload32.authToken, ownerToken: upload32.ownerToken },
    salt16: { authToken: upload16.authToken, ownerToken: upload16.ownerToken },
  },
  stream: {
    ciphertextLength: ciphertext.length,
    ciphertextSha256: createHash('sha256').update(ciphertext).digest('hex'),
    firstBytes: hex(ciphertext.subarray(0, 32)),
    lastBytes: hex(ciphertext.subarray(ciphertext.length - 32)),
  },
  metadata: { nonce: hex(meta.nonce), ciphertext: hex(meta.ciphertext) },
  note: {
    authToken: note.authToken,
    ownerToken: note.ownerToken,
    nonce: hex(noteSealed.nonce),
    ciphertext: hex(noteSealed.ciphertext),
  },
  password: { passwordKey: hex(await derivePasswordKey(I.password, I.passwordSalt)) },
  request: {
    uploadSecret: hex(request.uploadSecret),
    inboxSecret: hex(request.inboxSecret),
    fields: request.fields,
    wrapEnc: toBase64Url(wrap.wrapEnc),
    wrapCiphertext: toBase64Url(wrap.wrapCiphertext),
  },
  links: {
    file: buildLink('https://share.example', {
      kind: 'file',
      id: I.uploadId,
      secret: I.secret,
      hasPassword: false,
    }),
    inbox: buildLink('https://share.example', {
      kind: 'inbox',
      id: I.requestId,
      secret: I.secret,
      passwordSalt: I.passwordSalt,
    }),
  },
}

writeFileSync(new URL('./v1.json', import.meta.url), JSON.stringify(vectors, null, 2) + '\n')
