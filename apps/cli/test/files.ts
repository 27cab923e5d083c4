/** Building test trees on disk and comparing what came back, by streaming hashes. */
import { createHash, randomBytes } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { lstat, mkdir, open, readdir, utimes, writeFile, chmod } from 'node:fs/promises'
import { join, relative } from 'node:path'

export const MiB = 1024 * 1024

/** Writes `size` pseudo-random bytes (incompressible, distinct per file) in 1 MiB blocks. */
export async function writeRandomFile(path: string, size: number): Promise<void> {
  const handle = await open(path, 'w')
  try {
    const block = randomBytes(MiB)
    for (let written = 0; written < size;) {
      const length = Math.min(MiB, size - written)
      // Every block differs from the last, so a swapped or repeated block would show.
      block.writeUInt32LE(written / MiB, 0)
      await handle.write(block, 0, length, written)
      written += length
    }
  } finally {
    await handle.close()
  }
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path, { highWaterMark: 4 * MiB }))
    hash.update(chunk as Buffer)
  return hash.digest('hex')
}

export interface Snapshot {
  type: 'file' | 'dir' | 'other'
  size: number
  mode: number
  mtimeSec: number
  sha256?: string
}

/** Everything under `root` by relative path: type, size, permission bits, mtime, content hash. */
export async function snapshot(root: string): Promise<Record<string, Snapshot>> {
  const result: Record<string, Snapshot> = {}
  const walk = async (dir: string) => {
    for (const name of (await readdir(dir)).sort()) {
      const path = join(dir, name)
      const stats = await lstat(path)
      const type = stats.isFile() ? 'file' : stats.isDirectory() ? 'dir' : 'other'
      result[relative(root, path)] = {
        type,
        size: type === 'file' ? stats.size : 0,
        mode: stats.mode & 0o777,
        mtimeSec: Math.floor(stats.mtimeMs / 1000),
        ...(type === 'file' ? { sha256: await sha256File(path) } : {}),
      }
      if (type === 'dir') await walk(path)
    }
  }
  await walk(root)
  return result
}

/**
 * A tree with nested folders, an empty folder, empty files, Unicode names, an executable, and
 * one large file; whole-second mtimes so that ZIP's Unix timestamps can carry them exactly.
 */
export async function makeTree(root: string, bigSize: number): Promise<void> {
  const dirs = ['a', 'a/b', 'a/b/c', 'empty folder', 'ünïcødé 日本語 🚀']
  for (const dir of dirs) await mkdir(join(root, dir), { recursive: true })
  await writeFile(join(root, 'a/readme.md'), '# hello\n')
  await writeFile(join(root, 'a/empty.txt'), '')
  await writeFile(join(root, 'a/b/c/empty too'), '')
  await writeFile(join(root, 'ünïcødé 日本語 🚀/Ω≈ç√.txt'), 'unicode content ✓\n')
  await writeFile(join(root, 'a/b/run.sh'), '#!/bin/sh\necho hi\n')
  await chmod(join(root, 'a/b/run.sh'), 0o755)
  await chmod(join(root, 'a/readme.md'), 0o640)
  await writeRandomFile(join(root, 'a/b/big.bin'), bigSize)
  const when = new Date('2022-02-03T04:05:06Z')
  const files = [
    'a/readme.md',
    'a/empty.txt',
    'a/b/c/empty too',
    'ünïcødé 日本語 🚀/Ω≈ç√.txt',
    'a/b/run.sh',
    'a/b/big.bin',
  ]
  for (const path of [...files, ...dirs.reverse(), '.']) await utimes(join(root, path), when, when)
}
