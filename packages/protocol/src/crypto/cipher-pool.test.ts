/**
 * The cipher pool against in-thread workers (the real message loop behind a MessageChannel, so
 * buffers are cloned and transferred as between threads) and against real node:worker_threads.
 */
import { fileURLToPath } from 'node:url'
import { MessageChannel, Worker } from 'node:worker_threads'

import { afterEach, describe, expect, it } from 'vitest'

import { RECORD_SIZE } from '../sizes.js'
import type { CipherRequest, CipherWorkerMessage } from './cipher-messages.js'
import {
  CipherJobError,
  cipherWorkerCount,
  createCipherPool,
  type CipherPool,
  type CipherWorkerEvents,
  type StartCipherWorker,
} from './cipher-pool.js'
import { runCipherWorker } from './cipher-worker.js'
import { webCryptoRecords } from './stream.js'

const MiB = 1024 * 1024
const TAG = 16

/** A worker in this thread: the real loop over WebCrypto, its answers held on demand. */
class FakeWorker {
  readonly received: Array<{ byteOffset: number; length: number; bufferSize: number }> = []
  readonly handedBack: ArrayBuffer[] = []
  readonly busy: boolean[] = []
  terminated = false
  hold = false
  private held: Array<() => void> = []
  private readonly channel = new MessageChannel()

  constructor(readonly events: CipherWorkerEvents) {
    const inside = this.channel.port2
    runCipherWorker<CryptoKey>(
      {
        postMessage: (message, transfer) => {
          const send = () => {
            if (this.terminated) return
            if ('spare' in message && message.spare) this.handedBack.push(message.spare)
            inside.postMessage(message, transfer)
          }
          if (this.hold && !('ready' in message)) this.held.push(send)
          else send()
        },
        listen: (listener) =>
          inside.on('message', (request: CipherRequest<CryptoKey>) => {
            const { byteOffset, length, buffer } = request.record
            this.received.push({ byteOffset, length, bufferSize: buffer.byteLength })
            listener(request)
          }),
      },
      webCryptoRecords,
    )
    this.channel.port1.on('message', (data: CipherWorkerMessage) => events.message(data))
  }

  post(request: CipherRequest<CryptoKey>, transfer: ArrayBuffer[]): void {
    this.channel.port1.postMessage(request, transfer)
  }

  terminate(): void {
    this.terminated = true
    this.channel.port1.close()
  }

  setBusy(busy: boolean): void {
    this.busy.push(busy)
  }

  /** Once `count` answers are held, sends them last first and holds no more. */
  async release(count: number): Promise<void> {
    while (this.held.length < count) await new Promise((resolve) => setTimeout(resolve, 5))
    this.hold = false
    for (const send of this.held.reverse()) send()
    this.held = []
  }
}

const pools: Array<CipherPool<CryptoKey>> = []
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()))
})

function fakePool(size: number, copyBuffer?: (bytes: number) => ArrayBuffer | undefined) {
  const workers: FakeWorker[] = []
  const pool = createCipherPool<CryptoKey>({
    size,
    copyBuffer,
    fallback: webCryptoRecords,
    startWorker: (events) => {
      const worker = new FakeWorker(events)
      workers.push(worker)
      return {
        post: (request, transfer) => worker.post(request, transfer),
        terminate: () => worker.terminate(),
        hold: (busy) => worker.setBusy(busy),
      }
    },
  })
  pools.push(pool)
  return { pool, workers }
}

/** Real threads running test/cipher-worker-thread.ts (TypeScript, loaded through tsx). */
const startThread: StartCipherWorker<CryptoKey> = (events) => {
  // The thread's loader resolves tsx from the working folder: the package's, where the suite runs.
  const entry = fileURLToPath(new URL('../../test/cipher-worker-thread.ts', import.meta.url))
  const source = `import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(entry)}, ${JSON.stringify(import.meta.url)}))`
  const worker = new Worker(source, { eval: true })
  worker.on('message', (data: CipherWorkerMessage) => events.message(data))
  worker.on('error', (error) => events.failure(error.message))
  worker.on('exit', (code) => events.failure(`exit code ${code}`))
  return {
    post: (request, transfer) => worker.postMessage(request, transfer),
    terminate: () => worker.terminate(),
  }
}

function threadPool(size: number) {
  const pool = createCipherPool<CryptoKey>({
    size,
    fallback: webCryptoRecords,
    startWorker: startThread,
  })
  pools.push(pool)
  return pool
}

const newKey = () =>
  crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt'])

const nonceOf = (n: number) => {
  const nonce = new Uint8Array(12)
  nonce[11] = n
  return nonce
}

function bytes(length: number, seed: number, room = 0): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(new ArrayBuffer(length + room), 0, length)
  for (let i = 0; i < length; i++) out[i] = (i * 31 + seed) & 0xff
  return out
}

const same = (a: Uint8Array | undefined, b: Uint8Array) =>
  a !== undefined && Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b))

/** Waits (polling) until `done()` holds. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5))
}

describe('cipherWorkerCount', () => {
  it('leaves one core to the rest, starts at least one worker and at most two', () => {
    const counts = [0, 1, 2, 3, 4, 8, 64, Number.NaN].map(cipherWorkerCount)
    expect(counts).toEqual([1, 1, 1, 2, 2, 2, 2, 1])
  })
})

describe.each([
  ['in-thread workers', (size: number) => fakePool(size).pool],
  ['node:worker_threads', threadPool],
])('cipher pool over %s', (_name, newPool) => {
  it('seals and opens exactly as WebCrypto does, each call its own answer', async () => {
    const pool = newPool(2)
    expect(await pool.ready()).toBe(true)
    const key = await newKey()
    // Sizes that finish out of order: big records are posted first.
    const sizes = [MiB, 17, 300_000, 1, 0, 65536, MiB, 4096, RECORD_SIZE, 12]
    const plains = sizes.map((size, n) => bytes(size, n))
    const sealed = await Promise.all(plains.map((p, n) => pool.seal(key, nonceOf(n), p)))
    for (const [n, plain] of plains.entries()) {
      expect(same(sealed[n], await webCryptoRecords.seal(key, nonceOf(n), plain))).toBe(true)
    }
    const opened = await Promise.all(sealed.map((s, n) => pool.open(key, nonceOf(n), s)))
    expect(opened.every((o, n) => same(o, plains[n]!))).toBe(true)
  })

  it('moves a buffer given up instead of copying it', async () => {
    const pool = newPool(1)
    await pool.ready()
    const key = await newKey()
    const record = bytes(MiB, 3, TAG)
    const expected = await webCryptoRecords.seal(key, nonceOf(3), record)
    const sealed = pool.seal(key, nonceOf(3), record, { transfer: true })
    expect(record.buffer.byteLength).toBe(0)
    expect(same(await sealed, expected)).toBe(true)
  })

  // Security: a record that does not authenticate yields no plaintext, only an error.
  it('rejects only the call whose record does not authenticate', async () => {
    const pool = newPool(2)
    await pool.ready()
    const key = await newKey()
    const good = await pool.seal(key, nonceOf(1), bytes(5000, 1))
    const running = pool.workers
    const bad = good.slice()
    bad[10]! ^= 1
    const [ok, failed, wrongNonce, alsoOk] = await Promise.allSettled([
      pool.open(key, nonceOf(1), good),
      pool.open(key, nonceOf(1), bad),
      pool.open(key, nonceOf(2), good),
      pool.open(key, nonceOf(1), good),
    ])
    expect(ok.status === 'fulfilled' && same(ok.value, bytes(5000, 1))).toBe(true)
    expect(alsoOk.status === 'fulfilled' && same(alsoOk.value, bytes(5000, 1))).toBe(true)
    for (const outcome of [failed, wrongNonce]) {
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(CipherJobError)
      expect((outcome as PromiseRejectedResult).reason.message).toBe(
        'The record cipher failed (OperationError)',
      )
    }
    // Refusals drop no worker.
    expect(pool.workers).toBeGreaterThanOrEqual(running)
  })

  it('reruns here the calls of a worker that stops, and fails those given up', async () => {
    const pool = newPool(1)
    await pool.ready()
    const key = await newKey()
    const plains = [0, 1, 2, 3, 4, 5].map((n) => bytes(MiB, n, TAG))
    const expected = await Promise.all(
      plains.map((p, n) => webCryptoRecords.seal(key, nonceOf(n), p)),
    )
    const copied = plains.slice(0, 3).map((p, n) => pool.seal(key, nonceOf(n), p))
    const givenUp = plains
      .slice(3)
      .map((p, n) => pool.seal(key, nonceOf(n + 3), p, { transfer: true }).catch((e) => e))
    await pool.close()
    const results = await Promise.all(copied)
    expect(results.every((r, n) => same(r, expected[n]!))).toBe(true)
    for (const [n, outcome] of (await Promise.all(givenUp)).entries()) {
      // Answered before the stop, or lost with the worker: never wrong bytes.
      if (outcome instanceof Error) {
        expect(outcome).toBeInstanceOf(CipherJobError)
        expect(outcome.message).toMatch(/^A record was lost with its cipher worker/)
      } else {
        expect(same(outcome as Uint8Array, expected[n + 3]!)).toBe(true)
      }
    }
    expect(pool.workers).toBe(0)
    // Later calls run here.
    expect(same(await pool.seal(key, nonceOf(0), plains[0]!), expected[0]!)).toBe(true)
  })
})

describe('cipher pool, in-thread workers', () => {
  it('starts its workers on first use and runs calls here until one is ready', async () => {
    const { pool, workers } = fakePool(2)
    expect(workers).toHaveLength(0)
    const key = await newKey()
    const first = await pool.seal(key, nonceOf(0), bytes(100, 1))
    expect(same(first, await webCryptoRecords.seal(key, nonceOf(0), bytes(100, 1)))).toBe(true)
    expect(workers).toHaveLength(2)
    expect(workers.every((w) => w.received.length === 0)).toBe(true)
    await pool.ready()
    await pool.seal(key, nonceOf(1), bytes(100, 1))
    expect(workers.map((w) => w.received.length).sort()).toEqual([0, 1])
  })

  it('spreads records over the workers, the least busy first', async () => {
    const { pool, workers } = fakePool(2)
    await pool.ready()
    const key = await newKey()
    await Promise.all([0, 1, 2, 3, 4, 5].map((n) => pool.seal(key, nonceOf(n), bytes(MiB, n))))
    expect(workers.map((w) => w.received.length)).toEqual([3, 3])
  })

  it('gives each call its own answer when a worker answers out of order', async () => {
    const { pool, workers } = fakePool(1)
    await pool.ready()
    const key = await newKey()
    workers[0]!.hold = true
    const calls = [1, 2, 3, 4].map((n) => pool.seal(key, nonceOf(n), bytes(1000, n)))
    await workers[0]!.release(4)
    const answers = await Promise.all(calls)
    for (const [i, n] of [1, 2, 3, 4].entries()) {
      expect(same(answers[i], await webCryptoRecords.seal(key, nonceOf(n), bytes(1000, n)))).toBe(
        true,
      )
    }
  })

  it('copies a record not given up: the caller keeps its bytes, the worker gets its own buffer', async () => {
    const { pool, workers } = fakePool(1)
    await pool.ready()
    const key = await newKey()
    const whole = bytes(3 * MiB, 7)
    const before = whole.slice()
    for (const length of [MiB, 1000]) {
      const view = whole.subarray(MiB, MiB + length)
      const sealed = await pool.seal(key, nonceOf(0), view)
      expect(same(sealed, await webCryptoRecords.seal(key, nonceOf(0), view))).toBe(true)
      expect(same(whole, before)).toBe(true)
    }
    expect(workers[0]!.received.map((r) => [r.byteOffset, r.length])).toEqual([
      [0, MiB],
      [0, 1000],
    ])
  })

  it('copies later records into the buffers the workers hand back', async () => {
    const { pool, workers } = fakePool(1)
    await pool.ready()
    const key = await newKey()
    for (let n = 0; n < 4; n++) await pool.seal(key, nonceOf(n), bytes(MiB, n))
    const worker = workers[0]!
    // Each record goes in a record-sized buffer, one the worker handed back after the first.
    expect(worker.handedBack).toHaveLength(4)
    expect(worker.received.map((r) => r.bufferSize)).toEqual(Array(4).fill(RECORD_SIZE + TAG))
    expect(worker.received.map((r) => r.length)).toEqual([MiB, MiB, MiB, MiB])
  })

  it('opens whole sealed records in the buffers the workers hand back, with no room added', async () => {
    const { pool, workers } = fakePool(1)
    await pool.ready()
    const key = await newKey()
    const sealed = await webCryptoRecords.seal(key, nonceOf(0), bytes(MiB, 5))
    for (let n = 0; n < 4; n++) {
      const opened = await pool.open(key, nonceOf(0), sealed)
      expect(same(opened, bytes(MiB, 5))).toBe(true)
    }
    // A sealed record fills a record-sized buffer exactly: the first one comes back and is reused.
    expect(workers[0]!.received.map((r) => r.bufferSize)).toEqual(Array(4).fill(RECORD_SIZE + TAG))
    expect(workers[0]!.handedBack).toHaveLength(4)
  })

  it('lends record buffers to fill and give up, reusing those the workers hand back', async () => {
    const { pool, workers } = fakePool(1)
    await pool.ready()
    const key = await newKey()
    expect(pool.recordBuffer(1000)).toBeUndefined()
    for (let n = 0; n < 3; n++) {
      const buffer = pool.recordBuffer(MiB)!
      const record = new Uint8Array(buffer, 0, MiB)
      // After the first, each is the buffer the worker handed back: it still holds that record.
      if (n > 0) expect(same(record, bytes(MiB, n - 1))).toBe(true)
      record.set(bytes(MiB, n))
      const sealed = await pool.seal(key, nonceOf(n), record, { transfer: true })
      expect(same(sealed, await webCryptoRecords.seal(key, nonceOf(n), bytes(MiB, n)))).toBe(true)
      // Given up: it went to the worker with no copy.
      expect(buffer.byteLength).toBe(0)
    }
    expect(workers[0]!.received.map((r) => r.bufferSize)).toEqual(Array(3).fill(RECORD_SIZE + TAG))
    expect(workers[0]!.handedBack).toHaveLength(3)
  })

  it('copies into the buffers the app supplies, and into its own when one is too small', async () => {
    const asked: number[] = []
    const { pool, workers } = fakePool(1, (needed) => {
      asked.push(needed)
      return new ArrayBuffer(needed === 1000 + TAG ? 10 : 3 * MiB)
    })
    await pool.ready()
    const key = await newKey()
    for (const length of [MiB, 1000]) {
      const sealed = await pool.seal(key, nonceOf(1), bytes(length, 3))
      expect(same(sealed, await webCryptoRecords.seal(key, nonceOf(1), bytes(length, 3)))).toBe(
        true,
      )
    }
    expect(asked).toEqual([MiB + TAG, 1000 + TAG])
    expect(workers[0]!.received.map((r) => r.bufferSize)).toEqual([3 * MiB, 1000 + TAG])
  })

  it('reruns here the calls of a worker that fails, then uses the others and never replaces it', async () => {
    const { pool, workers } = fakePool(2)
    await pool.ready()
    const key = await newKey()
    for (const worker of workers) worker.hold = true
    const waiting = [1, 2, 3, 4].map((n) => pool.seal(key, nonceOf(n), bytes(2000, n)))
    await until(() => workers.every((w) => w.received.length === 2))
    const sentToDead = workers[0]!.received.length
    expect(sentToDead).toBe(2)
    workers[0]!.events.failure('the script failed to load')
    expect(workers[0]!.terminated).toBe(true)
    expect(pool.workers).toBe(1)
    await workers[1]!.release(2)
    const answers = await Promise.all(waiting)
    for (const [i, n] of [1, 2, 3, 4].entries()) {
      expect(same(answers[i], await webCryptoRecords.seal(key, nonceOf(n), bytes(2000, n)))).toBe(
        true,
      )
    }
    const before = workers[1]!.received.length
    await pool.seal(key, nonceOf(5), bytes(10, 5))
    expect(workers[1]!.received.length).toBe(before + 1)
    expect(workers[0]!.received.length).toBe(sentToDead)
    expect(workers).toHaveLength(2)
  })

  it('runs everything here once no worker is left, and where none can start', async () => {
    const { pool, workers } = fakePool(1)
    await pool.ready()
    const key = await newKey()
    workers[0]!.hold = true
    const pending = pool.seal(key, nonceOf(1), bytes(100, 1))
    await until(() => workers[0]!.received.length === 1)
    workers[0]!.events.failure('crashed')
    expect(same(await pending, await webCryptoRecords.seal(key, nonceOf(1), bytes(100, 1)))).toBe(
      true,
    )
    expect(pool.workers).toBe(0)
    expect(await pool.ready()).toBe(false)
    await pool.seal(key, nonceOf(2), bytes(100, 2))
    expect(workers[0]!.received).toHaveLength(1)

    const none = createCipherPool<CryptoKey>({
      size: 2,
      fallback: webCryptoRecords,
      startWorker: () => {
        throw new Error('Worker is not defined')
      },
    })
    const sealed = await none.seal(key, nonceOf(3), bytes(300, 3))
    expect(same(await none.open(key, nonceOf(3), sealed), bytes(300, 3))).toBe(true)
    expect(await none.ready()).toBe(false)
  })

  it('lets a worker hold the process only while it has calls', async () => {
    const { pool, workers } = fakePool(1)
    await pool.ready()
    const key = await newKey()
    await Promise.all([1, 2, 3].map((n) => pool.seal(key, nonceOf(n), bytes(1000, n))))
    await pool.seal(key, nonceOf(4), bytes(1000, 4))
    expect(workers[0]!.busy).toEqual([true, false, true, false])
  })
})
