/**
 * Test payloads on disk and their digests: deterministic pseudo-random bytes (so a wrong offset
 * or a dropped record changes the digest), written and hashed as streams so a 1 GiB file never
 * sits in memory.
 */
import { createCipheriv, createHash } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pipeline } from 'node:stream/promises'

const MiB = 1024 * 1024

/** Bytes `0 … size-1` of the AES-256-CTR keystream of `seed`: fast, reproducible, incompressible. */
export function* pseudoRandomChunks(size: number, seed: string): Generator<Buffer> {
  const key = createHash('sha256').update(seed).digest()
  const cipher = createCipheriv('aes-256-ctr', key, Buffer.alloc(16))
  const zeros = Buffer.alloc(MiB)
  for (let left = size; left > 0; left -= MiB) {
    yield cipher.update(left >= MiB ? zeros : zeros.subarray(0, left))
  }
}

/** Writes `size` pseudo-random bytes of `seed` to `path`, creating its directory. */
export async function writePseudoRandomFile(
  path: string,
  size: number,
  seed = path,
): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  await pipeline(pseudoRandomChunks(size, seed), createWriteStream(path))
}

/** SHA-256 of a file, hex, read as a stream. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256')
  await pipeline(createReadStream(path, { highWaterMark: MiB }), hash)
  return hash.digest('hex')
}

/** SHA-256 of `size` pseudo-random bytes of `seed`, without writing them anywhere. */
export function sha256PseudoRandom(size: number, seed: string): string {
  const hash = createHash('sha256')
  for (const chunk of pseudoRandomChunks(size, seed)) hash.update(chunk)
  return hash.digest('hex')
}

export interface TempDir {
  path: string
  join(...parts: string[]): string
  remove(): Promise<void>
}

export async function tempDir(prefix = 'fileshare-e2e-files-'): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix))
  return {
    path,
    join: (...parts) => join(path, ...parts),
    remove: () => rm(path, { recursive: true, force: true }),
  }
}
