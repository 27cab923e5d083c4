/**
 * `pnpm bench:crypto`: throughput of the streamed payload cipher against raw node:crypto
 * AES-256-GCM on the same bytes, measured in one run, plus a sweep of record sizes and the time
 * of one argon2id-v2 derivation. Prints a table; the last line is one JSON object of every figure.
 */
import { randomBytes } from 'node:crypto'
import { rawNodeGcmMBps } from '@fileshare/testing'

import { deriveUploadKeys } from '../src/crypto/keys.js'
import { derivePasswordKey } from '../src/crypto/password.js'
import { createDecryptStream, createEncryptStream } from '../src/crypto/stream.js'
import { RECORD_SIZE } from '../src/sizes.js'

const MiB = 1024 * 1024
const TOTAL = Number(process.env.BENCH_CRYPTO_MIB ?? 512) * MiB
const SWEEP_TOTAL = 256 * MiB
/** Input arrives in pieces the size a file or network stream delivers. */
const PIECE = 256 * 1024
const ROUNDS = 3

const data = randomBytes(TOTAL)
const mbps = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000)

function pieces(buffer: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let offset = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= buffer.length) return controller.close()
      controller.enqueue(buffer.subarray(offset, offset + size))
      offset += size
    },
  })
}

async function drain(stream: ReadableStream<Uint8Array>, keep: boolean): Promise<Uint8Array[]> {
  const out: Uint8Array[] = []
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return out
    if (keep) out.push(value)
  }
}

function join(parts: Uint8Array[]): Uint8Array {
  return Buffer.concat(parts)
}

async function best(fn: () => Promise<number> | number): Promise<number> {
  let top = 0
  for (let i = 0; i < ROUNDS; i++) top = Math.max(top, await fn())
  return top
}

async function streamed(bytes: Uint8Array, recordSize: number) {
  const { fileKey } = await deriveUploadKeys(randomBytes(32), randomBytes(32))
  // The ciphertext for the decrypt rounds is made once, outside the timed rounds, so that
  // keeping it does not burden the encrypt figure with garbage-collector work.
  const ciphertext = join(
    await drain(
      pieces(bytes, PIECE).pipeThrough(createEncryptStream(fileKey, { recordSize })),
      true,
    ),
  )
  const encryptMBps = await best(async () => {
    const start = performance.now()
    await drain(
      pieces(bytes, PIECE).pipeThrough(createEncryptStream(fileKey, { recordSize })),
      false,
    )
    return mbps(bytes.length, performance.now() - start)
  })
  const decryptMBps = await best(async () => {
    const start = performance.now()
    await drain(
      pieces(ciphertext, PIECE).pipeThrough(createDecryptStream(fileKey, { recordSize })),
      false,
    )
    return mbps(bytes.length, performance.now() - start)
  })
  return { encryptMBps, decryptMBps }
}

const rawMBps = await best(() =>
  Math.max(rawNodeGcmMBps(data, RECORD_SIZE), rawNodeGcmMBps(data, 16 * MiB)),
)
const main = await streamed(data, RECORD_SIZE)

const sweep: Record<string, { encryptMBps: number; decryptMBps: number }> = {}
for (const size of [64 * 1024, 256 * 1024, MiB, 4 * MiB]) {
  sweep[`${size / 1024}KiB`] = await streamed(data.subarray(0, SWEEP_TOTAL), size)
}

const argonTimes: number[] = []
for (let i = 0; i < 3; i++) {
  const start = performance.now()
  await derivePasswordKey('benchmark password', randomBytes(16))
  argonTimes.push(performance.now() - start)
}
const argon2Ms = argonTimes.sort((a, b) => a - b)[1]!

const round = (n: number, digits = 0) => Number(n.toFixed(digits))
const result = {
  payloadMiB: TOTAL / MiB,
  recordSize: RECORD_SIZE,
  encryptMBps: round(main.encryptMBps),
  decryptMBps: round(main.decryptMBps),
  rawMBps: round(rawMBps),
  encryptRatio: round(main.encryptMBps / rawMBps, 3),
  decryptRatio: round(main.decryptMBps / rawMBps, 3),
  argon2Ms: round(argon2Ms),
  recordSizeSweep: Object.fromEntries(
    Object.entries(sweep).map(([k, v]) => [
      k,
      { encryptMBps: round(v.encryptMBps), decryptMBps: round(v.decryptMBps) },
    ]),
  ),
}

const row = (label: string, value: string) =>
  console.log(`${label.padEnd(44)}${value.padStart(14)}`)
console.log(
  `Streamed payload cipher, ${TOTAL / MiB} MiB, record ${RECORD_SIZE / 1024} KiB, best of ${ROUNDS}`,
)
row('raw node:crypto AES-256-GCM (MB/s)', String(result.rawMBps))
row('streamed encrypt (MB/s)', String(result.encryptMBps))
row('streamed decrypt (MB/s)', String(result.decryptMBps))
row('encrypt / raw', result.encryptRatio.toFixed(3))
row('decrypt / raw', result.decryptRatio.toFixed(3))
row('argon2id-v2, one derivation (ms)', String(result.argon2Ms))
console.log(`Record size sweep, ${SWEEP_TOTAL / MiB} MiB`)
for (const [size, v] of Object.entries(result.recordSizeSweep)) {
  row(`  ${size} encrypt / decrypt (MB/s)`, `${v.encryptMBps} / ${v.decryptMBps}`)
}
console.log(JSON.stringify(result))
