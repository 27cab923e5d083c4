/**
 * Ed25519 SSH key pairs made in the browser with WebCrypto and written in OpenSSH's formats: the
 * one-line public key (`ssh-ed25519 <base64 of the RFC 8709 §4 blob> <comment>`) and the
 * unencrypted `openssh-key-v1` private key of OpenSSH's PROTOCOL.key (cipher and KDF "none").
 */

import { concatBytes as concat, fromBase64, fromBase64Url, toBase64 } from '@fileshare/protocol'

const KEY_TYPE = 'ssh-ed25519'
const AUTH_MAGIC = 'openssh-key-v1\0'
/** PROTOCOL.key pads the private section to the cipher's block size, 8 for "none". */
const BLOCK_SIZE = 8
const PEM_LINE = 70
const PEM_BEGIN = '-----BEGIN OPENSSH PRIVATE KEY-----'
const PEM_END = '-----END OPENSSH PRIVATE KEY-----'

export interface SshKeyPair {
  /** One line, `ssh-ed25519 AAAA… comment`, without a newline. */
  publicKey: string
  /** The PEM-armoured private key, ending with a newline as `ssh-keygen` writes it. */
  privateKey: string
}

/** A fresh Ed25519 key pair in OpenSSH format. */
export async function generateSshKeyPair(comment = ''): Promise<SshKeyPair> {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, [
    'sign',
    'verify',
  ])) as CryptoKeyPair
  const jwk = await crypto.subtle.exportKey('jwk', pair.privateKey)
  if (!jwk.d || !jwk.x) throw new Error('The browser did not export the Ed25519 key')
  const checkInt = crypto.getRandomValues(new Uint32Array(1))[0]!
  return encodeSshKeyPair(fromBase64Url(jwk.d), fromBase64Url(jwk.x), comment, checkInt)
}

/**
 * Both OpenSSH encodings of the Ed25519 key with the 32-byte `seed` (RFC 8032's private key) and
 * its 32-byte `publicKey`. `checkInt` is the random word PROTOCOL.key repeats twice so that a
 * decrypting reader can tell a wrong passphrase; with cipher "none" it only has to match itself.
 */
export function encodeSshKeyPair(
  seed: Uint8Array,
  publicKey: Uint8Array,
  comment: string,
  checkInt: number,
): SshKeyPair {
  if (seed.length !== 32 || publicKey.length !== 32) throw new Error('Ed25519 keys are 32 bytes')
  if (/[\r\n]/.test(comment)) throw new Error('A key comment is one line')
  const publicBlob = new SshWriter().string(KEY_TYPE).bytes(publicKey).finish()

  const section = new SshWriter()
    .uint32(checkInt)
    .uint32(checkInt)
    .string(KEY_TYPE)
    .bytes(publicKey)
    // OpenSSH stores the private key as seed || public key (64 bytes).
    .bytes(concat(seed, publicKey))
    .string(comment)
  for (let pad = 1; section.length % BLOCK_SIZE !== 0; pad++) section.byte(pad)

  const body = new SshWriter()
    .raw(new TextEncoder().encode(AUTH_MAGIC))
    .string('none')
    .string('none')
    .string('')
    .uint32(1)
    .bytes(publicBlob)
    .bytes(section.finish())
    .finish()

  const base64 = toBase64(body)
  const lines: string[] = []
  for (let i = 0; i < base64.length; i += PEM_LINE) lines.push(base64.slice(i, i + PEM_LINE))
  const line = `${KEY_TYPE} ${toBase64(publicBlob)}${comment ? ` ${comment}` : ''}`
  return { publicKey: line, privateKey: `${PEM_BEGIN}\n${lines.join('\n')}\n${PEM_END}\n` }
}

/**
 * The `SHA256:…` fingerprint `ssh-keygen -l` prints for a one-line public key, or null when the
 * line is not an OpenSSH public key.
 */
export async function sshFingerprint(publicKeyLine: string): Promise<string | null> {
  const blob = publicKeyLine.trim().split(/\s+/)[1]
  if (!blob || !/^[A-Za-z0-9+/]+={0,2}$/.test(blob)) return null
  let bytes: Uint8Array
  try {
    bytes = fromBase64(blob)
  } catch {
    return null
  }
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as BufferSource))
  return `SHA256:${toBase64(digest).replace(/=+$/, '')}`
}

/** SSH wire encoding (RFC 4251 §5): big-endian uint32 and length-prefixed strings. */
class SshWriter {
  private readonly parts: Uint8Array[] = []
  length = 0

  raw(data: Uint8Array): this {
    this.parts.push(data)
    this.length += data.length
    return this
  }

  byte(value: number): this {
    return this.raw(new Uint8Array([value]))
  }

  uint32(value: number): this {
    const out = new Uint8Array(4)
    new DataView(out.buffer).setUint32(0, value >>> 0)
    return this.raw(out)
  }

  bytes(data: Uint8Array): this {
    return this.uint32(data.length).raw(data)
  }

  string(text: string): this {
    return this.bytes(new TextEncoder().encode(text))
  }

  finish(): Uint8Array {
    return concat(...this.parts)
  }
}
