/**
 * File requests. A request has a P-256 key pair and two link secrets: the upload link secret
 * (given to senders) and the inbox link secret (kept by the requester).
 *
 * - From the upload link secret: `uploadToken` and the key of the brief. The brief holds the
 *   requester's public key and message, so a sender learns the key to wrap to from a source the
 *   server cannot forge.
 * - From the inbox link secret: `inboxAuthToken`, `inboxOwnerToken` and the key of the vault,
 *   which holds the key pair and the upload link secret. The vault's additional data binds a hash
 *   of the brief, so a swapped brief cannot open it.
 * - Each upload into a request has its own 32-byte secret, wrapped to the requester's public key
 *   with HPKE base mode (RFC 9180: DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM), the
 *   request id bound in `info` and the upload id in `aad`.
 */
import type { CipherSuite } from '@hpke/core'
import { concatBytes, fromUtf8, toBase64Url, utf8 } from '../encoding.js'
import { decryptFailed, ProtocolError } from '../errors.js'
import { LABELS } from './labels.js'
import { pad, unpad } from './padding.js'
import { buffer, hkdfAesKey, hkdfBytes, randomBytes, sha256 } from './primitives.js'
import { open, seal, type Sealed } from './sealed.js'
import { SECRET_SIZE } from './keys.js'
import {
  BRIEF_CIPHERTEXT_BLOCK_BYTES,
  BRIEF_CIPHERTEXT_MAX_BYTES,
  BRIEF_CIPHERTEXT_TAG_BYTES,
  REQUEST_WRAP_CIPHERTEXT_BYTES,
  REQUEST_WRAP_ENC_BYTES,
} from '../wire/limits.js'

export const REQUEST_FORMAT_VERSION = 1
export const PUBLIC_KEY_SIZE = 65
export const PRIVATE_KEY_SIZE = 32
export const VAULT_PLAINTEXT_SIZE = 1 + PUBLIC_KEY_SIZE + SECRET_SIZE + PRIVATE_KEY_SIZE
const BRIEF_PLAINTEXT_MAX = BRIEF_CIPHERTEXT_MAX_BYTES - BRIEF_CIPHERTEXT_TAG_BYTES

/** What the requester asks for, encrypted in the brief. */
export interface RequestBrief {
  /** The requester's message to senders. */
  message: string
  /** Whether senders may add a note to their files (a note takes a second upload slot). */
  acceptsNote: boolean
}

/** Binary fields of `POST /api/request`, canonical base64url. */
export interface RequestCreationFields {
  vault: string
  vaultNonce: string
  inboxAuthToken: string
  inboxOwnerToken: string
  uploadToken: string
  brief: { ciphertext: string; nonce: string }
}

export interface CreatedRequest {
  fields: RequestCreationFields
  /** Goes into the upload link given to senders. */
  uploadSecret: Uint8Array
  /** Goes into the inbox link the requester keeps (protected by a password if one is set). */
  inboxSecret: Uint8Array
}

export interface InboxAccess {
  /** `X-Inbox-Token`, base64url. */
  inboxToken: string
  /** `X-Inbox-Owner-Token`, base64url. */
  inboxOwnerToken: string
}

export interface OpenedVault {
  publicKey: Uint8Array
  uploadSecret: Uint8Array
  keyPair: CryptoKeyPair
}

export interface UploadWrap {
  wrapEnc: Uint8Array
  wrapCiphertext: Uint8Array
}

let suitePromise: Promise<CipherSuite> | undefined

/**
 * The HPKE suite, loaded on first use: only file requests need it, and loading it costs every
 * command and page that never touches one (tens of milliseconds at each start of the command line).
 */
function hpkeSuite(): Promise<CipherSuite> {
  if (suitePromise === undefined) {
    const loading = import('@hpke/core').then(
      ({ Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 }) =>
        new CipherSuite({
          kem: new DhkemP256HkdfSha256(),
          kdf: new HkdfSha256(),
          aead: new Aes256Gcm(),
        }),
    )
    suitePromise = loading
    // A failed load (a chunk the browser could not fetch) is tried again on the next call.
    loading.catch(() => {
      if (suitePromise === loading) suitePromise = undefined
    })
  }
  return suitePromise
}

const NO_SALT = new Uint8Array(0)

function checkSecret(secret: Uint8Array): void {
  if (secret.length !== SECRET_SIZE) {
    throw new ProtocolError('BAD_INPUT', `A link secret must be ${SECRET_SIZE} bytes`)
  }
}

/** `X-Upload-Token` of a request, from its upload link secret. */
export async function deriveUploadToken(uploadSecret: Uint8Array): Promise<string> {
  checkSecret(uploadSecret)
  return toBase64Url(await hkdfBytes(uploadSecret, NO_SALT, LABELS.requestUploadToken))
}

/** The inbox tokens of a request, from its inbox link secret. */
export async function deriveInboxAccess(inboxSecret: Uint8Array): Promise<InboxAccess> {
  checkSecret(inboxSecret)
  const [inboxToken, inboxOwnerToken] = await Promise.all([
    hkdfBytes(inboxSecret, NO_SALT, LABELS.requestInboxToken),
    hkdfBytes(inboxSecret, NO_SALT, LABELS.requestInboxOwnerToken),
  ])
  return { inboxToken: toBase64Url(inboxToken), inboxOwnerToken: toBase64Url(inboxOwnerToken) }
}

function encodeBrief(brief: RequestBrief, publicKey: Uint8Array): Uint8Array {
  if (typeof brief.message !== 'string' || typeof brief.acceptsNote !== 'boolean') {
    throw new ProtocolError('BAD_INPUT', 'Malformed request brief')
  }
  const body = concatBytes(
    new Uint8Array([REQUEST_FORMAT_VERSION]),
    publicKey,
    utf8(JSON.stringify({ message: brief.message, acceptsNote: brief.acceptsNote })),
  )
  const padded = pad(body, BRIEF_CIPHERTEXT_BLOCK_BYTES)
  if (padded.length > BRIEF_PLAINTEXT_MAX) {
    throw new ProtocolError('BAD_INPUT', 'The message for senders is too long')
  }
  return padded
}

function decodeBrief(padded: Uint8Array): { brief: RequestBrief; publicKey: Uint8Array } {
  const body = unpad(padded, BRIEF_CIPHERTEXT_BLOCK_BYTES)
  if (body.length < 1 + PUBLIC_KEY_SIZE) throw decryptFailed()
  if (body[0] !== REQUEST_FORMAT_VERSION) {
    throw new ProtocolError('UNSUPPORTED_VERSION', 'Unknown request format version')
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(fromUtf8(body.subarray(1 + PUBLIC_KEY_SIZE)))
  } catch (cause) {
    throw decryptFailed(cause)
  }
  const value = parsed as Partial<RequestBrief> | null
  if (typeof value?.message !== 'string' || typeof value.acceptsNote !== 'boolean') {
    throw decryptFailed()
  }
  return {
    brief: { message: value.message, acceptsNote: value.acceptsNote },
    publicKey: body.slice(1, 1 + PUBLIC_KEY_SIZE),
  }
}

async function briefHash(brief: Sealed): Promise<Uint8Array> {
  return sha256(brief.nonce, brief.ciphertext)
}

/** Everything a new request needs: the key pair, both link secrets, the brief and the vault. */
export async function createRequest(brief: RequestBrief): Promise<CreatedRequest> {
  const suite = await hpkeSuite()
  const keyPair = await suite.kem.generateKeyPair()
  const publicKey = new Uint8Array(await suite.kem.serializePublicKey(keyPair.publicKey))
  const privateKey = new Uint8Array(await suite.kem.serializePrivateKey(keyPair.privateKey))
  const uploadSecret = randomBytes(SECRET_SIZE)
  const inboxSecret = randomBytes(SECRET_SIZE)

  const briefKey = await hkdfAesKey(uploadSecret, NO_SALT, LABELS.requestBriefKey)
  const sealedBrief = await seal(briefKey, encodeBrief(brief, publicKey), LABELS.requestBriefAad)

  const vaultKey = await hkdfAesKey(inboxSecret, NO_SALT, LABELS.requestVaultKey)
  const vaultPlain = concatBytes(
    new Uint8Array([REQUEST_FORMAT_VERSION]),
    publicKey,
    uploadSecret,
    privateKey,
  )
  const vault = await seal(
    vaultKey,
    vaultPlain,
    LABELS.requestVaultAad,
    await briefHash(sealedBrief),
  )
  privateKey.fill(0)
  vaultPlain.fill(0)

  const [uploadToken, inbox] = await Promise.all([
    deriveUploadToken(uploadSecret),
    deriveInboxAccess(inboxSecret),
  ])
  return {
    fields: {
      vault: toBase64Url(vault.ciphertext),
      vaultNonce: toBase64Url(vault.nonce),
      inboxAuthToken: inbox.inboxToken,
      inboxOwnerToken: inbox.inboxOwnerToken,
      uploadToken,
      brief: {
        ciphertext: toBase64Url(sealedBrief.ciphertext),
        nonce: toBase64Url(sealedBrief.nonce),
      },
    },
    uploadSecret,
    inboxSecret,
  }
}

/** Sender side: decrypts the brief with the upload link secret. */
export async function openBrief(
  uploadSecret: Uint8Array,
  brief: Sealed,
): Promise<{ brief: RequestBrief; publicKey: Uint8Array }> {
  checkSecret(uploadSecret)
  const briefKey = await hkdfAesKey(uploadSecret, NO_SALT, LABELS.requestBriefKey)
  return decodeBrief(await open(briefKey, brief, LABELS.requestBriefAad))
}

/** Requester side: opens the vault with the inbox link secret; fails if the brief was swapped. */
export async function openVault(
  inboxSecret: Uint8Array,
  vault: Sealed,
  brief: Sealed,
): Promise<OpenedVault> {
  checkSecret(inboxSecret)
  const suite = await hpkeSuite()
  const vaultKey = await hkdfAesKey(inboxSecret, NO_SALT, LABELS.requestVaultKey)
  const plain = await open(vaultKey, vault, LABELS.requestVaultAad, await briefHash(brief))
  if (plain.length !== VAULT_PLAINTEXT_SIZE) throw decryptFailed()
  if (plain[0] !== REQUEST_FORMAT_VERSION) {
    throw new ProtocolError('UNSUPPORTED_VERSION', 'Unknown request format version')
  }
  const publicKey = plain.slice(1, 1 + PUBLIC_KEY_SIZE)
  const uploadSecret = plain.slice(1 + PUBLIC_KEY_SIZE, 1 + PUBLIC_KEY_SIZE + SECRET_SIZE)
  const privateBytes = plain.slice(1 + PUBLIC_KEY_SIZE + SECRET_SIZE)
  try {
    const keyPair: CryptoKeyPair = {
      publicKey: await suite.kem.deserializePublicKey(buffer(publicKey)),
      privateKey: await suite.kem.deserializePrivateKey(buffer(privateBytes)),
    }
    return { publicKey, uploadSecret, keyPair }
  } catch (cause) {
    throw decryptFailed(cause)
  } finally {
    privateBytes.fill(0)
    plain.fill(0)
  }
}

function wrapInfo(requestId: string): Uint8Array {
  return concatBytes(utf8(LABELS.requestWrapInfo), utf8(requestId))
}

/**
 * Loads what `wrapUploadSecret` needs, ahead of it: a sender seals the wrap at finalize, which may
 * come after a lost connection, and a browser does not fetch a module again once its load failed.
 */
export async function prepareUploadWrap(): Promise<void> {
  await hpkeSuite()
}

/** Sender side: wraps an upload's secret to the requester's public key. */
export async function wrapUploadSecret(
  publicKey: Uint8Array,
  requestId: string,
  uploadId: string,
  secret: Uint8Array,
): Promise<UploadWrap> {
  checkSecret(secret)
  if (publicKey.length !== PUBLIC_KEY_SIZE) {
    throw new ProtocolError('BAD_INPUT', `A public key must be ${PUBLIC_KEY_SIZE} bytes`)
  }
  const suite = await hpkeSuite()
  const recipientPublicKey = await suite.kem.deserializePublicKey(buffer(publicKey))
  const sealed = await suite.seal(
    { recipientPublicKey, info: buffer(wrapInfo(requestId)) },
    buffer(secret),
    buffer(utf8(uploadId)),
  )
  return { wrapEnc: new Uint8Array(sealed.enc), wrapCiphertext: new Uint8Array(sealed.ct) }
}

/** Requester side: recovers an upload's secret; fails for another request, upload or key. */
export async function unwrapUploadSecret(
  keyPair: CryptoKeyPair,
  requestId: string,
  uploadId: string,
  wrap: UploadWrap,
): Promise<Uint8Array> {
  if (
    wrap.wrapEnc.length !== REQUEST_WRAP_ENC_BYTES ||
    wrap.wrapCiphertext.length !== REQUEST_WRAP_CIPHERTEXT_BYTES
  ) {
    throw decryptFailed()
  }
  const suite = await hpkeSuite()
  try {
    const secret = await suite.open(
      { recipientKey: keyPair, enc: buffer(wrap.wrapEnc), info: buffer(wrapInfo(requestId)) },
      buffer(wrap.wrapCiphertext),
      buffer(utf8(uploadId)),
    )
    return new Uint8Array(secret)
  } catch (cause) {
    throw decryptFailed(cause)
  }
}
