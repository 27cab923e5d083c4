/**
 * Choices of the request form that the server leaves to the client: which "largest upload"
 * sizes to offer under `fileRequestMaxSize`, and which option of each list to preselect.
 */
import {
  BRIEF_CIPHERTEXT_MAX_BYTES,
  BRIEF_CIPHERTEXT_TAG_BYTES,
  PUBLIC_KEY_SIZE,
} from '@fileshare/protocol'

const MB = 1000 ** 2
const GB = 1000 ** 3

/** Round sizes people pick from; the server's own maximum is always offered as well. */
export const MAX_SIZE_PRESETS: readonly number[] = [
  10 * MB,
  100 * MB,
  500 * MB,
  GB,
  5 * GB,
  10 * GB,
  50 * GB,
  100 * GB,
]

/** The sizes to offer for a request's largest upload, ascending, the server's maximum last. */
export function maxSizeOptions(serverMax: number): number[] {
  const options = MAX_SIZE_PRESETS.filter((size) => size < serverMax)
  if (serverMax >= 1) options.push(serverMax)
  return options
}

/** The preselected choice: the middle of the list, neither the stingiest nor the most generous. */
export function middleOption<T>(options: readonly T[]): T | undefined {
  return options[Math.floor((options.length - 1) / 2)]
}

/** The preselected largest upload: 1 GB when offered, otherwise the largest below it. */
export function defaultMaxSize(options: readonly number[]): number | undefined {
  const fitting = options.filter((size) => size <= GB)
  return fitting.at(-1) ?? options[0]
}

/**
 * Whether the message fits the brief: docs/crypto.md "File requests" pads a version byte, the
 * 65-byte public key and the JSON `{ message, acceptsNote }` plus a 0x80 marker into at most
 * 8 KiB before encryption.
 */
export function messageFits(message: string, acceptsNote: boolean): boolean {
  const json = new TextEncoder().encode(JSON.stringify({ message, acceptsNote })).length
  return 1 + PUBLIC_KEY_SIZE + json + 1 <= BRIEF_CIPHERTEXT_MAX_BYTES - BRIEF_CIPHERTEXT_TAG_BYTES
}
