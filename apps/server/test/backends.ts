/**
 * The storage backends the integration suites run against: the suites take a Backend, and read
 * stored blobs and downloads through these helpers so that one test checks both backends.
 */
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'

import { expect } from 'vitest'
import type { Radosgw } from '@fileshare/testing/radosgw'

import type { S3BlobStore } from '../src/storage/s3.js'
import type { TestServer } from './harness.js'
import { openMultipartKeys, s3Env } from './s3-backend.js'

export interface Backend {
  name: 'filesystem' | 's3'
  /** Settings for a new server; each call on S3 names a new bucket, so servers share nothing. */
  env(): Record<string, string>
}

export const FILESYSTEM: Backend = { name: 'filesystem', env: () => ({}) }

/** S3 on `gateway()`, which is read only when a server starts (after the suite's setup). */
export function s3Backend(gateway: () => Radosgw): Backend {
  return { name: 's3', env: () => s3Env(gateway()) }
}

/** Keys of the committed blobs and of the unfinished writes (partial files, multipart uploads). */
export async function blobFiles(
  server: TestServer,
): Promise<{ committed: string[]; partial: string[] }> {
  const { blobs } = server.service
  if (blobs.kind === 's3') {
    const committed: string[] = []
    for await (const blob of blobs.list()) committed.push(blob.key)
    return { committed, partial: await openMultipartKeys(blobs as S3BlobStore) }
  }
  const root = join(server.dataDir, 'blobs')
  const committed = (await readdir(root)).filter((name) => !name.startsWith('.'))
  // Chunks of sessions kept in the database are unfinished bytes as partial files are.
  const chunks = await readdir(join(root, '.chunks')).catch(() => [])
  const partial = [...(await readdir(join(root, '.partial'))), ...chunks]
  return { committed, partial }
}

/**
 * A download as a client completes it. On S3 the server answers `{ url, size, fileCount }` and
 * the client fetches the ciphertext from the presigned URL; the result then carries what the
 * filesystem answer carries in its headers (size and file count as the server stated them).
 */
export async function followDownload(server: TestServer, res: Response): Promise<Response> {
  if (res.status !== 200 || server.service.blobs.kind !== 's3') return res
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  const answer = (await res.json()) as { url: string; size: number; fileCount: number }
  expect(Object.keys(answer).sort()).toEqual(['fileCount', 'size', 'url'])
  const blob = await fetch(answer.url)
  expect(blob.status).toBe(200)
  expect(blob.headers.get('content-length')).toBe(String(answer.size))
  // Read whole here (test blobs are small), so the answer handed back owns its bytes and does not
  // depend on the state of the presigned fetch's stream.
  return new Response(await blob.arrayBuffer(), {
    status: 200,
    headers: {
      'Content-Type': 'application/octet-stream',
      'Content-Length': String(answer.size),
      'Cache-Control': res.headers.get('cache-control') ?? '',
      'X-File-Count': String(answer.fileCount),
    },
  })
}
