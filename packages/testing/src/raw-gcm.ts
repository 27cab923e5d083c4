/**
 * The benchmarks' reference for the record cipher: node:crypto's AES-256-GCM over `bytes` in calls
 * of `callSize` bytes, each under a nonce of its own, with nothing else around it.
 */
import { createCipheriv, randomBytes } from 'node:crypto'

/** MB/s (10^6 bytes per second) of one pass. */
export function rawNodeGcmMBps(bytes: Uint8Array, callSize: number): number {
  const key = randomBytes(32)
  const start = performance.now()
  for (let offset = 0, i = 0; offset < bytes.length; offset += callSize, i++) {
    const iv = Buffer.alloc(12)
    iv.writeUInt32BE(i, 8)
    const cipher = createCipheriv('aes-256-gcm', key, iv)
    cipher.update(bytes.subarray(offset, offset + callSize))
    cipher.final()
    cipher.getAuthTag()
  }
  return bytes.length / 1e6 / ((performance.now() - start) / 1000)
}
