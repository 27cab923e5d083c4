import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, describe, expect, it } from 'vitest'

import { encodeSshKeyPair, generateSshKeyPair, sshFingerprint } from './ssh-key'
import { formatSshKeyNote, parseSshKeyNote } from './ssh-note'

const hex = (s: string) => Uint8Array.from(s.match(/../g)!, (b) => parseInt(b, 16))
// RFC 8032 §7.1, TEST 1.
const SEED = hex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60')
const PUBLIC = hex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a')

const dir = mkdtempSync(join(tmpdir(), 'ssh-key-test-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function hasSshKeygen(): boolean {
  try {
    execFileSync('ssh-keygen', ['-?'], { stdio: 'ignore' })
  } catch (error) {
    // ssh-keygen exits non-zero on -? but exists; only a missing binary is ENOENT.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT'
  }
  return true
}

const keygen = hasSshKeygen()
if (!keygen && process.env.CI === 'true') throw new Error('ssh-keygen (openssh-client) is needed')

/** What `ssh-keygen -y` derives from the private key file: the public key line it holds. */
function keygenPublic(privateKey: string): string {
  const file = join(dir, `key-${Math.random().toString(36).slice(2)}`)
  writeFileSync(file, privateKey, { mode: 0o600 })
  return execFileSync('ssh-keygen', ['-y', '-f', file], { encoding: 'utf8' }).trim()
}

describe('OpenSSH encoding', () => {
  it('writes the RFC 8709 public key blob of a known key', () => {
    const pair = encodeSshKeyPair(SEED, PUBLIC, 'me@host', 0x01020304)
    expect(pair.publicKey).toBe(
      'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea me@host',
    )
    expect(pair.privateKey).toMatch(
      /^-----BEGIN OPENSSH PRIVATE KEY-----\n([A-Za-z0-9+/=]{1,70}\n)+-----END OPENSSH PRIVATE KEY-----\n$/,
    )
  })

  it('pads the private section to 8 bytes with 1, 2, 3, …', () => {
    for (const comment of ['', 'a', 'ab', 'abcdefg']) {
      const pem = encodeSshKeyPair(SEED, PUBLIC, comment, 7).privateKey
      const body = Buffer.from(pem.split('\n').slice(1, -2).join(''), 'base64')
      const start = findSection(body)
      const section = body.subarray(start + 4)
      expect(section.length).toBe(body.readUInt32BE(start))
      expect(section.length % 8).toBe(0)
      // checkints 8, key type 4 + 11, public 4 + 32, private 4 + 64, comment 4 + its length.
      const padding = section.subarray(4 + 4 + 15 + 36 + 68 + 4 + comment.length)
      expect([...padding]).toEqual(padding.length ? [...padding.keys()].map((i) => i + 1) : [])
    }
  })

  it.skipIf(!keygen)('ssh-keygen derives the same public key from the private key file', () => {
    const pair = encodeSshKeyPair(SEED, PUBLIC, 'known key', 0xdeadbeef)
    expect(keygenPublic(pair.privateKey)).toBe(pair.publicKey)
  })

  it('refuses a comment with a line break and keys of the wrong size', () => {
    expect(() => encodeSshKeyPair(SEED, PUBLIC, 'a\nb', 1)).toThrow(/one line/)
    expect(() => encodeSshKeyPair(SEED.subarray(1), PUBLIC, '', 1)).toThrow(/32 bytes/)
  })
})

describe('generateSshKeyPair', () => {
  it.skipIf(!keygen)('makes a key pair that ssh-keygen accepts', async () => {
    const pair = await generateSshKeyPair('fresh')
    expect(pair.publicKey).toMatch(/^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/]{43} fresh$/)
    expect(keygenPublic(pair.privateKey)).toBe(pair.publicKey)
  })

  it('makes a different key each time', async () => {
    const [a, b] = await Promise.all([generateSshKeyPair(), generateSshKeyPair()])
    expect(a.publicKey).not.toBe(b.publicKey)
  })

  it.skipIf(!keygen)('prints the fingerprint ssh-keygen -l prints', async () => {
    const pair = await generateSshKeyPair('fp')
    const file = join(dir, 'fp.pub')
    writeFileSync(file, `${pair.publicKey}\n`)
    const listed = execFileSync('ssh-keygen', ['-l', '-f', file], { encoding: 'utf8' }).split(
      ' ',
    )[1]
    expect(await sshFingerprint(pair.publicKey)).toBe(listed)
    expect(await sshFingerprint('not a key')).toBeNull()
  })
})

describe('sshkey note text', () => {
  it('splits a generated pair back into its two keys', async () => {
    const pair = await generateSshKeyPair('x')
    expect(parseSshKeyNote(formatSshKeyNote(pair))).toEqual([
      { kind: 'public', text: pair.publicKey },
      { kind: 'private', text: pair.privateKey },
    ])
  })

  it('keeps pasted text around the keys', () => {
    const pem = encodeSshKeyPair(SEED, PUBLIC, '', 1).privateKey
    const text = `deploy key for ci\r\n${pem.replace(/\n/g, '\r\n')}ecdsa-sha2-nistp256 AAAAE2Vj= c\ntrailing`
    expect(parseSshKeyNote(text)).toEqual([
      { kind: 'other', text: 'deploy key for ci' },
      { kind: 'private', text: pem },
      { kind: 'public', text: 'ecdsa-sha2-nistp256 AAAAE2Vj= c' },
      { kind: 'other', text: 'trailing' },
    ])
  })

  it('treats text without keys as other text', () => {
    expect(parseSshKeyNote('just words')).toEqual([{ kind: 'other', text: 'just words' }])
    expect(parseSshKeyNote('')).toEqual([])
  })
})

/** Offset of the private section's length word: the last SSH string in the body. */
function findSection(body: Buffer): number {
  let offset = 'openssh-key-v1\0'.length
  for (let i = 0; i < 3; i++) offset += 4 + body.readUInt32BE(offset) // cipher, kdf, kdf options
  offset += 4 // number of keys
  offset += 4 + body.readUInt32BE(offset) // public key blob
  return offset
}
