/**
 * The text of an `sshkey` note: a key pair made here is stored as the public key line, a blank
 * line and the private key block; a pasted note may hold any keys in any order. Reading splits
 * the text into public key lines, private key blocks and whatever else is there, so each key gets
 * its own copy button and nothing is dropped.
 */
import type { SshKeyPair } from './ssh-key'

export type SshNotePart =
  | { kind: 'public'; text: string }
  | { kind: 'private'; text: string }
  | { kind: 'other'; text: string }

const PRIVATE_BLOCK =
  /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----\r?\n[\s\S]*?\r?\n-----END \1PRIVATE KEY-----/g
const PUBLIC_LINE =
  /^(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-nistp(?:256|384|521)|sk-[a-z0-9@.-]+)\s+[A-Za-z0-9+/]+={0,2}(?:\s.*)?$/

/** The note text of a generated key pair. */
export function formatSshKeyNote(pair: SshKeyPair): string {
  return `${pair.publicKey}\n\n${pair.privateKey}`
}

/** Splits an `sshkey` note's text into its keys and the rest, in order. */
export function parseSshKeyNote(text: string): SshNotePart[] {
  const parts: SshNotePart[] = []
  let last = 0
  for (const match of text.matchAll(PRIVATE_BLOCK)) {
    splitLines(text.slice(last, match.index), parts)
    parts.push({ kind: 'private', text: `${match[0].replace(/\r\n/g, '\n')}\n` })
    last = match.index + match[0].length
  }
  splitLines(text.slice(last), parts)
  return parts
}

function splitLines(text: string, parts: SshNotePart[]): void {
  let other: string[] = []
  const flush = () => {
    const joined = other.join('\n').trim()
    if (joined) parts.push({ kind: 'other', text: joined })
    other = []
  }
  for (const line of text.split(/\r?\n/)) {
    if (PUBLIC_LINE.test(line.trim())) {
      flush()
      parts.push({ kind: 'public', text: line.trim() })
    } else {
      other.push(line)
    }
  }
  flush()
}
