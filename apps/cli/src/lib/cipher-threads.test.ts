/** The protocol's cipher pool on the command line's real threads (the built cipher-worker.js). */
import { spawn } from 'node:child_process'
import { createCipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto'
import { fileURLToPath } from 'node:url'

import {
  CipherJobError,
  createCipherPool,
  recordNonce,
  type CipherPool,
  type CipherWorkerHandle,
} from '@fileshare/protocol'
import { afterEach, describe, expect, it } from 'vitest'

import { startCipherThread } from './cipher-threads.js'
import { openRecord, sealRecord } from './node-gcm.js'

const TAG = 16
const pools: Array<CipherPool<KeyObject>> = []

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()))
})

const newKey = (): KeyObject => createSecretKey(randomBytes(32))

/** This thread's cipher, never writing over its input. */
const here = {
  seal: (key: KeyObject, nonce: Uint8Array, record: Uint8Array) =>
    sealRecord(key, nonce, record, () => undefined),
  open: (key: KeyObject, nonce: Uint8Array, record: Uint8Array) =>
    openRecord(key, nonce, record, () => undefined),
}

function newPool(size: number) {
  const threads: Array<CipherWorkerHandle<KeyObject>> = []
  const pool = createCipherPool<KeyObject>({
    size,
    fallback: here,
    startWorker: (events) => {
      const thread = startCipherThread(events)
      threads.push(thread)
      return thread
    },
  })
  pools.push(pool)
  return { pool, threads }
}

function sealHere(key: KeyObject, nonce: Uint8Array, plain: Uint8Array): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, nonce)
  const body = cipher.update(plain)
  cipher.final()
  return Buffer.concat([body, cipher.getAuthTag()])
}

/** `bytes` at the start of a buffer of their own with `room` bytes after them. */
function inBuffer(bytes: Uint8Array, room: number): Uint8Array<ArrayBuffer> {
  const view = new Uint8Array(new ArrayBuffer(bytes.length + room), 0, bytes.length)
  view.set(bytes)
  return view
}

describe('cipher threads', () => {
  it('seal and open to the bytes of node:crypto here, in place when given the buffer', async () => {
    const { pool } = newPool(2)
    expect(await pool.ready()).toBe(true)
    const key = newKey()
    const sizes = [1 << 20, 17, 300_000, 1, 0, 65536, 1 << 20, 4096, 999_999, 12]
    const plains = sizes.map((size) => randomBytes(size))
    const sealed = await Promise.all(
      plains.map((plain, i) =>
        pool.seal(key, recordNonce(i, false), inBuffer(plain, TAG), { transfer: i % 2 === 0 }),
      ),
    )
    sealed.forEach((bytes, i) => {
      expect(Buffer.from(bytes).equals(sealHere(key, recordNonce(i, false), plains[i]!))).toBe(true)
    })
    const opened = await Promise.all(
      sealed.map((bytes, i) => pool.open(key, recordNonce(i, false), bytes, { transfer: true })),
    )
    opened.forEach((bytes, i) => {
      expect(Buffer.from(bytes).equals(plains[i]!)).toBe(true)
      // Opened over the sealed record: the plaintext starts the buffer that came back.
      expect(bytes.byteOffset).toBe(0)
      expect(bytes.buffer.byteLength).toBe(sizes[i]! + TAG)
    })
  })

  // Security: a record that does not authenticate yields no plaintext, only an error.
  it('refuse a tampered record', async () => {
    const { pool } = newPool(1)
    await pool.ready()
    const key = newKey()
    const nonce = recordNonce(5, false)
    const sealed = sealHere(key, nonce, randomBytes(70_000))
    sealed[4000]! ^= 1
    await expect(pool.open(key, nonce, inBuffer(sealed, 0), { transfer: true })).rejects.toThrow(
      new CipherJobError('The record cipher failed (Error)'),
    )
    expect(pool.workers).toBe(1)
  })

  it('rerun here the records of a thread that stops, and fail those given up', async () => {
    const { pool, threads } = newPool(1)
    await pool.ready()
    const key = newKey()
    const plains = Array.from({ length: 8 }, () => randomBytes(1 << 20))
    const copied = plains
      .slice(0, 4)
      .map((plain, i) => pool.seal(key, recordNonce(i, false), plain))
    const givenUp = plains
      .slice(4)
      .map((plain, i) =>
        pool
          .seal(key, recordNonce(i + 4, false), inBuffer(plain, TAG), { transfer: true })
          .catch((error: unknown) => error),
      )
    await threads[0]!.terminate()
    const results = await Promise.all(copied)
    results.forEach((bytes, i) => {
      expect(Buffer.from(bytes).equals(sealHere(key, recordNonce(i, false), plains[i]!))).toBe(true)
    })
    for (const [i, outcome] of (await Promise.all(givenUp)).entries()) {
      if (outcome instanceof Error) {
        expect(outcome).toBeInstanceOf(CipherJobError)
      } else {
        const expected = sealHere(key, recordNonce(i + 4, false), plains[i + 4]!)
        expect(Buffer.from(outcome as Uint8Array).equals(expected)).toBe(true)
      }
    }
    expect(pool.workers).toBe(0)
  })

  it('never keep a process from exiting once their records are done', async () => {
    // This adapter in a node process of its own (TypeScript through tsx, as in the suites).
    const adapter = fileURLToPath(new URL('./cipher-threads.ts', import.meta.url))
    const script = `
      import { createSecretKey, randomBytes } from 'node:crypto'
      import { createCipherPool } from '@fileshare/protocol'
      const { startCipherThread } = await import(${JSON.stringify(adapter)})
      const fallback = { seal: () => { throw new Error('ran here') }, open: () => { throw new Error('ran here') } }
      const pool = createCipherPool({ size: 1, startWorker: startCipherThread, fallback })
      await pool.ready()
      const out = await pool.seal(createSecretKey(randomBytes(32)), new Uint8Array(12), new Uint8Array(48).subarray(0, 32))
      console.log('sealed', out.length)
    `
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const code = await new Promise<number | null | 'hung'>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL')
        resolve('hung')
      }, 20_000)
      child.on('exit', (exitCode) => {
        clearTimeout(timer)
        resolve(exitCode)
      })
    })
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
    expect(stdout.trim()).toBe('sealed 48')
  })
})
