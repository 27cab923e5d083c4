/** The BlobStore contract on the filesystem backend, in a temporary DATA_DIR. */
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll } from 'vitest'

import { FilesystemBlobStore } from '../src/storage/filesystem.js'
import { blobStoreContract } from './blob-store.contract.js'

let dataDir: string
let store: FilesystemBlobStore

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fileshare-blobs-'))
  store = await FilesystemBlobStore.open(dataDir)
})
afterAll(() => rm(dataDir, { recursive: true, force: true }))

blobStoreContract('filesystem', {
  store: () => store,
  largeSize: 3 * 1024 ** 2 + 123,
  // Partial files are named `<key>.<random>`.
  unfinished: async () =>
    (await readdir(join(dataDir, 'blobs', '.partial'))).map((name) => name.split('.')[0] ?? ''),
})
