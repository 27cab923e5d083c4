/**
 * Password protection `argon2id-v2`: the link carries protectedSecret = secret XOR passwordKey,
 * where passwordKey = Argon2id(password, 16-byte salt; 64 MiB, 3 passes, 1 lane, 32 bytes)
 * (RFC 9106). The server never sees the password; it only refuses the auth token that a wrong
 * password derives, and that refusal is what turns into WRONG_PASSWORD here.
 */
import { utf8 } from '../encoding.js'
import { ProtocolError } from '../errors.js'
import { PASSWORD_ALGO } from '../wire/common.js'
import { PASSWORD_SALT_BYTES } from '../wire/limits.js'
import { randomBytes, xorBytes } from './primitives.js'

/** Argon2id parameters of `argon2id-v2`. */
export const ARGON2ID_V2 = {
  memoryKiB: 64 * 1024,
  iterations: 3,
  parallelism: 1,
  hashLength: 32,
} as const

export function generatePasswordSalt(): Uint8Array {
  return randomBytes(PASSWORD_SALT_BYTES)
}

/** passwordKey = Argon2id(password as UTF-8, salt) with the `argon2id-v2` parameters. */
export async function derivePasswordKey(
  password: string,
  passwordSalt: Uint8Array,
  algo: string = PASSWORD_ALGO,
): Promise<Uint8Array> {
  if (algo !== PASSWORD_ALGO) {
    throw new ProtocolError('UNSUPPORTED_VERSION', `Unknown password algorithm: ${algo}`)
  }
  if (passwordSalt.length !== PASSWORD_SALT_BYTES) {
    throw new ProtocolError('BAD_INPUT', `The password salt must be ${PASSWORD_SALT_BYTES} bytes`)
  }
  if (password.length === 0) throw new ProtocolError('BAD_INPUT', 'The password is empty')
  // Loaded on first use: only password-protected links need Argon2id and its WebAssembly.
  const { argon2id } = await import('hash-wasm')
  return argon2id({
    password: utf8(password),
    salt: passwordSalt,
    memorySize: ARGON2ID_V2.memoryKiB,
    iterations: ARGON2ID_V2.iterations,
    parallelism: ARGON2ID_V2.parallelism,
    hashLength: ARGON2ID_V2.hashLength,
    outputType: 'binary',
  })
}

/** secret XOR passwordKey: what the link carries instead of the secret. XOR is its own inverse. */
export function protectSecret(secret: Uint8Array, passwordKey: Uint8Array): Uint8Array {
  return xorBytes(secret, passwordKey)
}

export interface PasswordLock {
  protectedSecret: Uint8Array
  passwordSalt: Uint8Array
  passwordAlgo: string
}

/** A fresh salt and the protected secret for a new password-protected link. */
export async function lockSecret(secret: Uint8Array, password: string): Promise<PasswordLock> {
  const passwordSalt = generatePasswordSalt()
  const passwordKey = await derivePasswordKey(password, passwordSalt)
  return {
    protectedSecret: protectSecret(secret, passwordKey),
    passwordSalt,
    passwordAlgo: PASSWORD_ALGO,
  }
}

export function wrongPassword(): ProtocolError {
  return new ProtocolError('WRONG_PASSWORD', 'Wrong password')
}

/**
 * The way back from link plus password to the secret: recovers the candidate secret and asks
 * `verify` (which derives the token and asks the server) whether it is the right one. Any
 * password yields some candidate, so only the server's answer tells a wrong one apart.
 */
export async function unlockSecret<T>(
  lock: PasswordLock,
  password: string,
  verify: (secret: Uint8Array) => Promise<T | false>,
): Promise<{ secret: Uint8Array; result: T }> {
  const passwordKey = await derivePasswordKey(password, lock.passwordSalt, lock.passwordAlgo)
  const secret = protectSecret(lock.protectedSecret, passwordKey)
  const result = await verify(secret)
  if (result === false) throw wrongPassword()
  return { secret, result }
}
