/**
 * What the S3 suites share: the run's radosgw (test/radosgw-gateway.ts), a fresh bucket per store
 * or server, removed when the file ends, and the server settings that point at it.
 */
import { randomBytes } from 'node:crypto'

import { ListMultipartUploadsCommand, ListObjectsV2Command } from '@aws-sdk/client-s3'
import { sharedRadosgw, type Radosgw } from '@fileshare/testing/radosgw'
import { inject } from 'vitest'

import { S3BlobStore, type S3StoreOptions } from '../src/storage/s3.js'

/** The smallest part S3 accepts, so that the tests cross part boundaries with little data. */
export const TEST_PART_SIZE = 5 * 1024 ** 2

/** The start of this file's bucket names, by which it finds its buckets to remove them. */
const FILE_BUCKETS = `fileshare-${randomBytes(4).toString('hex')}-`

export function newBucketName(): string {
  return `${FILE_BUCKETS}${randomBytes(6).toString('hex')}`
}

/** The run's radosgw as this file uses it: `stop` removes the buckets the file made. */
export function testRadosgw(): Radosgw {
  const address = inject('radosgw')
  if (address === null) throw new Error('radosgw is not installed')
  return sharedRadosgw(address, FILE_BUCKETS)
}

/** The environment of a server storing into a new bucket of `gateway`. */
export function s3Env(gateway: Radosgw, bucket = newBucketName()): Record<string, string> {
  return {
    STORAGE_BACKEND: 's3',
    S3_ENDPOINT: gateway.endpoint,
    S3_REGION: gateway.region,
    S3_BUCKET: bucket,
    S3_ACCESS_KEY_ID: gateway.accessKeyId,
    S3_SECRET_ACCESS_KEY: gateway.secretAccessKey,
    S3_FORCE_PATH_STYLE: 'true',
    S3_PART_SIZE: String(TEST_PART_SIZE),
  }
}

export async function openTestStore(
  gateway: Radosgw,
  options: Partial<Pick<S3StoreOptions, 'bucket' | 'now' | 'presignedUrlExpirySec'>> = {},
) {
  const store = new S3BlobStore({
    bucket: newBucketName(),
    endpoint: gateway.endpoint,
    region: gateway.region,
    accessKeyId: gateway.accessKeyId,
    secretAccessKey: gateway.secretAccessKey,
    forcePathStyle: true,
    partSize: TEST_PART_SIZE,
    presignedUrlExpirySec: 300,
    ...options,
  })
  await store.ensureBucket()
  return store
}

/** Keys of the multipart uploads still open in the store's bucket. */
export async function openMultipartKeys(store: S3BlobStore): Promise<string[]> {
  const page = await store.client.send(new ListMultipartUploadsCommand({ Bucket: store.bucket }))
  // Chunks of sessions kept in the database are unfinished bytes as open uploads are.
  const chunks = await store.client.send(
    new ListObjectsV2Command({ Bucket: store.bucket, Prefix: 'chunks/' }),
  )
  return [
    ...(page.Uploads ?? []).map((upload) => upload.Key ?? ''),
    ...(chunks.Contents ?? []).map((object) => object.Key ?? ''),
  ]
}

/**
 * Counts the commands `store` sends, by name, until the undo; not listings (a test's own
 * inspection of the bucket).
 */
export function countCommands(store: S3BlobStore) {
  const counts = new Map<string, number>()
  const name = `count-commands-${randomBytes(6).toString('hex')}`
  store.client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? ''
      if (!command.startsWith('List')) counts.set(command, (counts.get(command) ?? 0) + 1)
      return next(args)
    },
    { step: 'initialize', name },
  )
  return { counts, undo: () => store.client.middlewareStack.remove(name) }
}
