import { webCryptoRecords } from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import type { CipherAnswer, CipherRequest } from './cipher-messages'
import { createCipherPool, type CipherWorker } from './cipher-pool'

const MiB = 1024 * 1024

/**
 * A stand-in for a cipher worker in the unit environment (no Worker there): messages cross a
 * real structured clone with transfer, so transferred buffers are detached on the sending side
 * as in a browser, and the work is cipher-worker.ts's own WebCrypto calls.
 */
class FakeWorker implements CipherWorker {
  onmessage: ((event: MessageEvent<CipherAnswer>) => void) | null = null
  onerror: ((event: ErrorEvent) => void) | null = null
  onmessageerror: ((event: MessageEvent) => void) | null = null
  /** What each request carried when it arrived (its buffer goes back with the answer). */
  received: Array<{ byteOffset: number; length: number; head: number[] }> = []
  /** The record buffers as the pool posted them, and the spare buffers handed to the pool. */
  posted: ArrayBufferLike[] = []
  handedBack: ArrayBuffer[] = []
  terminated = false
  /** Holds answers until `release()` when true, so a test controls their order. */
  hold = false
  private held: Array<() => void> = []

  postMessage(message: CipherRequest, transfer: Transferable[]): void {
    if (this.terminated) throw new Error('terminated')
    this.posted.push(message.record.buffer)
    const request = structuredClone(message, { transfer })
    const { byteOffset, length } = request.record
    this.received.push({ byteOffset, length, head: [...request.record.subarray(0, 4)] })
    void this.answer(request)
  }

  terminate(): void {
    this.terminated = true
  }

  /** Fires the error event a worker whose script fails to load (or crashes) fires. */
  fail(): void {
    this.onerror?.({ preventDefault: () => undefined } as ErrorEvent)
  }

  /** Sends held answers, last first. */
  release(): void {
    for (const send of this.held.reverse()) send()
    this.held = []
  }

  private async answer({ id, op, key, nonce, record }: CipherRequest): Promise<void> {
    const spare = record.buffer
    let answer: CipherAnswer
    try {
      answer = { id, bytes: await webCryptoRecords[op](key, nonce, record), spare }
    } catch (error) {
      answer = { id, error: (error as Error).name, spare }
    }
    const send = () => {
      if (this.terminated) return
      const data = structuredClone(answer, { transfer: [answer.spare] })
      this.handedBack.push(data.spare)
      this.onmessage?.({ data } as MessageEvent<CipherAnswer>)
    }
    if (this.hold) this.held.push(send)
    else send()
  }
}

const newKey = () =>
  crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt'])

const nonceOf = (n: number) => {
  const nonce = new Uint8Array(12)
  nonce[11] = n
  return nonce
}

function bytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length)
  for (let i = 0; i < length; i++) out[i] = (i * 31 + seed) & 0xff
  return out
}

/** Byte equality; `toEqual` walks a megabyte element by element far too slowly. */
function same(a: Uint8Array | undefined, b: Uint8Array): boolean {
  if (!a || a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

function poolWith(count: number) {
  const workers: FakeWorker[] = []
  const pool = createCipherPool({
    size: count,
    startWorker: () => {
      const worker = new FakeWorker()
      workers.push(worker)
      return worker
    },
  })
  return { pool, workers }
}

describe('createCipherPool', () => {
  it('starts its workers on the first call, not before', async () => {
    const { pool, workers } = poolWith(2)
    expect(workers).toHaveLength(0)
    await pool.seal(await newKey(), nonceOf(0), bytes(100, 1))
    expect(workers).toHaveLength(2)
    expect(pool.workers).toBe(2)
  })

  it('seals and opens exactly as WebCrypto does, spreading records over the workers', async () => {
    const { pool, workers } = poolWith(2)
    const key = await newKey()
    const records = [0, 1, 2, 3, 4, 5].map((n) => bytes(MiB, n))
    const sealed = await Promise.all(records.map((r, n) => pool.seal(key, nonceOf(n), r)))
    for (const [n, record] of records.entries()) {
      expect(same(sealed[n], await webCryptoRecords.seal(key, nonceOf(n), record))).toBe(true)
    }
    const opened = await Promise.all(sealed.map((s, n) => pool.open(key, nonceOf(n), s)))
    expect(opened.every((o, n) => same(o, records[n]!))).toBe(true)
    expect(workers.map((w) => w.received.length)).toEqual([6, 6])
  })

  it('gives each call its own answer when the workers answer out of order', async () => {
    const { pool, workers } = poolWith(1)
    const key = await newKey()
    const first = pool.seal(key, nonceOf(1), bytes(1000, 1))
    workers[0]!.hold = true
    const calls = [2, 3, 4].map((n) => pool.seal(key, nonceOf(n), bytes(1000, n)))
    await new Promise((resolve) => setTimeout(resolve, 20))
    workers[0]!.release()
    const answers = await Promise.all([first, ...calls])
    for (const [i, n] of [1, 2, 3, 4].entries()) {
      expect(answers[i]).toEqual(await webCryptoRecords.seal(key, nonceOf(n), bytes(1000, n)))
    }
  })

  it('leaves the caller a partial view intact and seals only the view', async () => {
    const { pool, workers } = poolWith(1)
    const key = await newKey()
    const whole = bytes(3 * MiB, 7)
    const before = whole.slice()
    for (const length of [MiB, 1000]) {
      const view = whole.subarray(MiB, MiB + length)
      const sealed = await pool.seal(key, nonceOf(0), view)
      expect(same(sealed, await webCryptoRecords.seal(key, nonceOf(0), view))).toBe(true)
      expect(whole.buffer.byteLength).toBe(3 * MiB)
      expect(same(whole, before)).toBe(true)
    }
    // A whole buffer is not handed over either.
    const own = bytes(MiB, 9)
    await pool.seal(key, nonceOf(0), own)
    expect(same(own, bytes(MiB, 9))).toBe(true)
    expect(workers[0]!.received.map((r) => [r.byteOffset, r.length])).toEqual([
      [0, MiB],
      [0, 1000],
      [0, MiB],
    ])
  })

  it('reuses the record buffers the workers hand back', async () => {
    const { pool, workers } = poolWith(1)
    const key = await newKey()
    for (let n = 0; n < 4; n++) await pool.seal(key, nonceOf(n), bytes(MiB, n))
    const worker = workers[0]!
    // Each record after the first travels in the buffer the previous answer brought back...
    expect(worker.posted.slice(1).every((buffer, n) => buffer === worker.handedBack[n])).toBe(true)
    // ...and carries its own bytes, not those the buffer held before.
    expect(worker.received.map((r) => r.length)).toEqual([MiB, MiB, MiB, MiB])
    expect(worker.received.map((r) => r.head)).toEqual([0, 1, 2, 3].map((n) => [...bytes(4, n)]))
  })

  it('rejects only the call whose record does not authenticate', async () => {
    const { pool } = poolWith(2)
    const key = await newKey()
    const good = await pool.seal(key, nonceOf(1), bytes(5000, 1))
    const bad = good.slice()
    bad[10]! ^= 1
    const [ok, failed, alsoOk] = await Promise.allSettled([
      pool.open(key, nonceOf(1), good),
      pool.open(key, nonceOf(1), bad),
      pool.open(key, nonceOf(1), good),
    ])
    expect(ok).toEqual({ status: 'fulfilled', value: bytes(5000, 1) })
    expect(alsoOk).toEqual({ status: 'fulfilled', value: bytes(5000, 1) })
    expect(failed.status).toBe('rejected')
    expect((failed as PromiseRejectedResult).reason).toMatchObject({ name: 'OperationError' })
    expect(pool.workers).toBe(2)
  })

  it('runs the calls of a worker that dies on WebCrypto here, then uses the others', async () => {
    const { pool, workers } = poolWith(2)
    const key = await newKey()
    await pool.seal(key, nonceOf(0), bytes(10, 0))
    workers[0]!.hold = true
    workers[1]!.hold = true
    const waiting = [1, 2, 3, 4].map((n) => pool.seal(key, nonceOf(n), bytes(2000, n)))
    await new Promise((resolve) => setTimeout(resolve, 20))
    const sentToDead = workers[0]!.received.length
    workers[0]!.fail()
    expect(workers[0]!.terminated).toBe(true)
    expect(pool.workers).toBe(1)
    workers[1]!.release()
    const answers = await Promise.all(waiting)
    for (const [i, n] of [1, 2, 3, 4].entries()) {
      expect(answers[i]).toEqual(await webCryptoRecords.seal(key, nonceOf(n), bytes(2000, n)))
    }
    workers[1]!.hold = false
    const before = workers[1]!.received.length
    await pool.seal(key, nonceOf(5), bytes(10, 5))
    expect(workers[1]!.received.length).toBe(before + 1)
    expect(workers[0]!.received.length).toBe(sentToDead)
  })

  it('falls back to WebCrypto once no worker is left, without hanging', async () => {
    const { pool, workers } = poolWith(1)
    const key = await newKey()
    workers.length = 0
    const pending = pool.seal(key, nonceOf(1), bytes(100, 1))
    // The worker's script fails to load after the first record was posted to it.
    workers[0]!.hold = true
    workers[0]!.fail()
    expect(await pending).toEqual(await webCryptoRecords.seal(key, nonceOf(1), bytes(100, 1)))
    expect(pool.workers).toBe(0)
    const later = await pool.seal(key, nonceOf(2), bytes(100, 2))
    expect(later).toEqual(await webCryptoRecords.seal(key, nonceOf(2), bytes(100, 2)))
    expect(workers[0]!.received).toHaveLength(1)
  })

  it('uses WebCrypto where no worker can be started', async () => {
    const pool = createCipherPool({
      size: 2,
      startWorker: () => {
        throw new Error('Worker is not defined')
      },
    })
    const key = await newKey()
    const sealed = await pool.seal(key, nonceOf(3), bytes(300, 3))
    expect(await pool.open(key, nonceOf(3), sealed)).toEqual(bytes(300, 3))
    expect(pool.workers).toBe(0)
  })
})
