/**
 * Note content: UTF-8 text sealed with the note key, padded to 128-byte blocks so that short
 * secrets (a password, a token) all have the same length, and bound to its content type so the
 * server cannot change how a note is rendered.
 */
import { fromUtf8, utf8 } from '../encoding.js'
import { LABELS } from './labels.js'
import { pad, unpad } from './padding.js'
import { open, seal, type Sealed } from './sealed.js'

/** Padding block of notes; with the marker and the tag it stays under the spec's 256 bytes. */
export const NOTE_BLOCK = 128

export async function encryptNote(
  contentKey: CryptoKey,
  text: string,
  contentType: string,
): Promise<Sealed> {
  return seal(contentKey, pad(utf8(text), NOTE_BLOCK), LABELS.noteContentAad, utf8(contentType))
}

export async function decryptNote(
  contentKey: CryptoKey,
  sealed: Sealed,
  contentType: string,
): Promise<string> {
  const padded = await open(contentKey, sealed, LABELS.noteContentAad, utf8(contentType))
  return fromUtf8(unpad(padded, NOTE_BLOCK))
}
