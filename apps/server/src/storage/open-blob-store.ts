/**
 * Opens the blob store STORAGE_BACKEND names, for the server and for fileshare-admin alike.
 * May touch: nothing directly; filesystem.ts or s3.ts opens the store.
 */
import type { Config } from '../config.js'
import type { BlobStore } from './blob-store.js'
import { FilesystemBlobStore } from './filesystem.js'

/** Loads the S3 client only for S3: it is large, and slows the start of a process without S3. */
export async function openBlobStore(config: Config): Promise<BlobStore> {
  if (!config.s3) return FilesystemBlobStore.open(config.dataDir)
  const { S3BlobStore } = await import('./s3.js')
  const store = new S3BlobStore(config.s3)
  await store.ensureBucket()
  return store
}
