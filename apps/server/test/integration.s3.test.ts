/**
 * The integration suites of uploads, downloads, requests and the inbox a second time, with
 * STORAGE_BACKEND=s3 against a real radosgw shared by the whole file (each server has its own
 * bucket). Downloads follow the presigned URL as the clients do.
 */
import { afterAll, beforeAll, describe } from 'vitest'
import { radosgwMissing, type Radosgw } from '@fileshare/testing/radosgw'

import { s3Backend } from './backends.js'
import { requestFlowSuite } from './request-flow.suite.js'
import { requestsSuite } from './requests.suite.js'
import { uploadsSuite } from './uploads.suite.js'
import { testRadosgw } from './s3-backend.js'

const missing = await radosgwMissing()
if (missing) console.warn(missing)

// A shared two-core machine runs three Ceph daemons besides the server: slower than a laptop.
describe.skipIf(missing !== null)('on S3', { timeout: 30_000 }, () => {
  let gateway: Radosgw | undefined

  beforeAll(async () => {
    gateway = testRadosgw()
  }, 90_000)
  afterAll(() => gateway?.stop())

  const backend = s3Backend(() => {
    if (!gateway) throw new Error('radosgw did not start')
    return gateway
  })
  uploadsSuite(backend)
  requestsSuite(backend)
  requestFlowSuite(backend)
})
