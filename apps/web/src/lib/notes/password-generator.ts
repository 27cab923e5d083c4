/**
 * Random passwords for password-list notes: characters drawn from chosen classes with
 * `crypto.getRandomValues` and rejection sampling, so every character of the alphabet is equally
 * likely (a plain `byte % n` would favour the first `256 % n` characters).
 */

export const CHARACTER_CLASSES = {
  lower: 'abcdefghijklmnopqrstuvwxyz',
  upper: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  digits: '0123456789',
  symbols: '!#$%&()*+,-./:;<=>?@[]^_{|}~',
} as const

export type CharacterClass = keyof typeof CHARACTER_CLASSES

export const ALL_CLASSES = Object.keys(CHARACTER_CLASSES) as CharacterClass[]

export const MIN_PASSWORD_LENGTH = 4
export const MAX_PASSWORD_LENGTH = 128
export const DEFAULT_PASSWORD_LENGTH = 20

export interface PasswordOptions {
  length: number
  classes: readonly CharacterClass[]
}

export const DEFAULT_PASSWORD_OPTIONS: PasswordOptions = {
  length: DEFAULT_PASSWORD_LENGTH,
  classes: ALL_CLASSES,
}

/** A uniformly random integer in [0, n), n ≤ 2^32, without modulo bias. */
export function randomIndex(n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > 2 ** 32) throw new RangeError('n must be 1 to 2^32')
  // Accept only values below the largest multiple of n that fits in 32 bits.
  const limit = 2 ** 32 - (2 ** 32 % n)
  const word = new Uint32Array(1)
  for (;;) {
    crypto.getRandomValues(word)
    if (word[0]! < limit) return word[0]! % n
  }
}

/**
 * A password of `length` characters from the union of `classes`, with at least one character of
 * each chosen class (placed at random positions) so that site rules like "one digit" are met.
 */
export function generatePassword(options: PasswordOptions = DEFAULT_PASSWORD_OPTIONS): string {
  const classes = [...new Set(options.classes)]
  if (classes.length === 0) throw new RangeError('Choose at least one character class')
  const { length } = options
  if (!Number.isInteger(length) || length < MIN_PASSWORD_LENGTH || length > MAX_PASSWORD_LENGTH) {
    throw new RangeError(`Length must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH}`)
  }
  const alphabet = classes.map((c) => CHARACTER_CLASSES[c]).join('')
  const chars = classes.map((c) => pick(CHARACTER_CLASSES[c]))
  while (chars.length < length) chars.push(pick(alphabet))
  // Fisher–Yates, so the guaranteed characters do not sit at the front.
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomIndex(i + 1)
    ;[chars[i], chars[j]] = [chars[j]!, chars[i]!]
  }
  return chars.join('')
}

function pick(alphabet: string): string {
  return alphabet[randomIndex(alphabet.length)]!
}
