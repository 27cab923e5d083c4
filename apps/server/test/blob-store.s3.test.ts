/** The BlobStore contract on the S3 backend against a real radosgw. */
import { afterAll, beforeAll, describe } from 'vitest'

import type { S3BlobStore } from '../src/storage/s3.js'
import { blobStoreContract } from './blob-store.contract.js'
import { radosgwMissing, startRadosgw, type Radosgw } from './radosgw.js'
import { openMultipartKeys, openTestStore, TEST_PART_SIZE } from './s3-backend.js'

const missing = await radosgwMissing()
if (missing) console.warn(missing)

// A shared two-core machine runs three Ceph daemons besides the server: slower than a laptop.
describe.skipIf(missing !== null)('S3 blob store', { timeout: 30_000 }, () => {
  let gateway: Radosgw | undefined
  let store: S3BlobStore

  beforeAll(async () => {
    gateway = await startRadosgw()
    store = await openTestStore(gateway)
  }, 90_000)
  afterAll(() => gateway?.stop())

  blobStoreContract('s3', {
    store: () => store,
    largeSize: 2 * TEST_PART_SIZE + 123,
    unfinished: () => openMultipartKeys(store),
  })
})
