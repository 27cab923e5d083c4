/**
 * Global setup of the S3 vitest projects: one radosgw for the whole run. The test files get its
 * address (`inject`, test/s3-backend.ts) and make buckets of their own in it, which they remove
 * when they end. Under CI=true a missing radosgw is installed here; elsewhere the files skip.
 */
import { radosgwMissing, startRadosgw, type RadosgwAddress } from '@fileshare/testing/radosgw'
import { takeRunFixture } from '@fileshare/testing/run-fixture'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's gateway; null where radosgw is missing outside CI. */
    radosgw: RadosgwAddress | null
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  if (await radosgwMissing()) {
    project.provide('radosgw', null)
    return
  }
  const { fixture, release } = await takeRunFixture('radosgw', startRadosgw, (gateway) =>
    gateway.stop(),
  )
  const { endpoint, region, accessKeyId, secretAccessKey, conf } = fixture
  project.provide('radosgw', { endpoint, region, accessKeyId, secretAccessKey, conf })
  return release
}
