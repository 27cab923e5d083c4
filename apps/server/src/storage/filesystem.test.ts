/**
 * Durability of a committed blob on the filesystem backend, watched through node:fs/promises:
 * the blobs directory is opened and fsynced after the rename that makes a blob visible.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import * as fs from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

import { FilesystemBlobStore } from './filesystem.js'

/** What the store did to the filesystem, in order. */
const events: string[] = []
/** Set to make the next directory fsync fail, as a failing disk would. */
let failDirectorySync = false

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>()
  return {
    ...real,
    rename: async (from: string, to: string) => {
      await real.rename(from, to)
      events.push(`rename ${to}`)
    },
    open: async (...args: Parameters<typeof real.open>) => {
      const handle = await real.open(...args)
      const path = String(args[0])
      if ((await handle.stat()).isDirectory()) {
        const sync = handle.sync.bind(handle)
        handle.sync = async () => {
          if (failDirectorySync) throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' })
          await sync()
          events.push(`sync directory ${path}`)
        }
      }
      return handle
    },
  }
})

describe('filesystem commit', () => {
  let dataDir: string
  beforeEach(async () => {
    dataDir = await fs.mkdtemp(join(tmpdir(), 'fileshare-fsync-'))
    events.length = 0
  })
  afterEach(() => fs.rm(dataDir, { recursive: true, force: true }))

  // Durability: a committed blob's directory entry reaches the disk before commit resolves.
  it('fsyncs the blobs directory after the rename, before commit resolves', async () => {
    const store = await FilesystemBlobStore.open(dataDir)
    const key = randomUUID()
    const writer = await store.create(key)
    await writer.write(randomBytes(1000))
    await writer.commit()
    const blobs = join(dataDir, 'blobs')
    expect(events).toEqual([`rename ${join(blobs, key)}`, `sync directory ${blobs}`])
  })

  it('removes the renamed blob when the directory cannot be synced', async () => {
    const store = await FilesystemBlobStore.open(dataDir)
    const key = randomUUID()
    const writer = await store.create(key)
    await writer.write(randomBytes(1000))
    failDirectorySync = true
    try {
      await expect(writer.commit()).rejects.toThrow('EIO')
    } finally {
      failDirectorySync = false
    }
    await expect(fs.stat(join(dataDir, 'blobs', key))).rejects.toThrow()
  })
})
