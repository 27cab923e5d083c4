/**
 * The reference the S3 benchmarks compare the server with: the same bytes as the WebSocket upload
 * sends, put straight into a bucket with @aws-sdk/lib-storage and the server's client settings.
 */
import { Readable } from 'node:stream'

import { DeleteObjectCommand } from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'
import type { Radosgw } from '@fileshare/testing/radosgw'

import { S3BlobStore } from '../src/storage/s3.js'
import { mbps, payload } from './lib.js'
import { WS_FRAME_SIZE } from './uploads.js'

/** The WebSocket upload's bytes as a stream for lib-storage. */
function payloadStream(size: number): Readable {
  let offset = 0
  let index = 0
  return new Readable({
    read() {
      if (offset >= size) return void this.push(null)
      const length = Math.min(WS_FRAME_SIZE, size - offset)
      this.push(payload(index++, length))
      offset += length
    },
  })
}

/** Uploads `size` bytes into `bucket` in parts of `partSize`, removes them; answers MB/s. */
export async function uploadDirect(
  gateway: Radosgw,
  options: { bucket: string; partSize: number; size: number },
): Promise<number> {
  const { bucket, partSize, size } = options
  // The server's own client settings (path style, checksums only where required).
  const { client } = new S3BlobStore({
    endpoint: gateway.endpoint,
    region: gateway.region,
    bucket,
    accessKeyId: gateway.accessKeyId,
    secretAccessKey: gateway.secretAccessKey,
    forcePathStyle: true,
    partSize,
    presignedUrlExpirySec: 300,
  })
  const key = 'direct-upload'
  const start = performance.now()
  await new Upload({
    client,
    params: { Bucket: bucket, Key: key, Body: payloadStream(size) },
    partSize,
  }).done()
  const result = mbps(size, performance.now() - start)
  await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }))
  client.destroy()
  return result
}
