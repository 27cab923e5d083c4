/**
 * Resuming streamed upload sessions with STORAGE_BACKEND=s3 against a real radosgw
 * (resume.suite.ts): multipart uploads continued after their last complete part.
 */
import { afterAll, beforeAll, describe } from 'vitest'
import { radosgwMissing, type Radosgw } from '@fileshare/testing/radosgw'

import { s3Backend } from './backends.js'
import { resumeSuite } from './resume.suite.js'
import { testRadosgw } from './s3-backend.js'

const missing = await radosgwMissing()
if (missing) console.warn(missing)

// A shared two-core machine runs three Ceph daemons besides the server: slower than a laptop.
describe.skipIf(missing !== null)('on S3', { timeout: 60_000 }, () => {
  let gateway: Radosgw | undefined

  beforeAll(async () => {
    gateway = testRadosgw()
  }, 90_000)
  afterAll(() => gateway?.stop())

  resumeSuite(
    s3Backend(() => {
      if (!gateway) throw new Error('radosgw did not start')
      return gateway
    }),
  )
})
