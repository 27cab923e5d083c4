/** The pool of cipher threads: same bytes as node:crypto here, failures, crashes and shutdown. */
import { spawn } from 'node:child_process'
import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  randomBytes,
  type KeyObject,
} from 'node:crypto'
import { fileURLToPath } from 'node:url'

import { recordNonce } from '@fileshare/protocol'
import { afterEach, describe, expect, it } from 'vitest'

import { CipherJobError, CipherPool, type CipherPoolOptions } from './cipher-pool.js'
import { CIPHER_WORKER_SOURCE } from './cipher-worker-source.js'

const TAG = 16
const pools: CipherPool[] = []

function newPool(options: CipherPoolOptions = {}): CipherPool {
  const pool = new CipherPool(options)
  pools.push(pool)
  return pool
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()))
})

const newKey = (): KeyObject => createSecretKey(randomBytes(32))

function sealHere(key: KeyObject, nonce: Uint8Array, plain: Uint8Array): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, nonce)
  const body = cipher.update(plain)
  cipher.final()
  return Buffer.concat([body, cipher.getAuthTag()])
}

function openHere(key: KeyObject, nonce: Uint8Array, sealed: Uint8Array): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, nonce)
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG))
  const body = decipher.update(sealed.subarray(0, sealed.length - TAG))
  decipher.final()
  return body
}

/** A buffer holding `bytes` with `room` spare bytes after them, as the pool takes it. */
function bufferOf(bytes: Uint8Array, room: number): ArrayBuffer {
  const buffer = new ArrayBuffer(bytes.length + room)
  new Uint8Array(buffer).set(bytes)
  return buffer
}

/** A thread that exits (code 3) on a job of 13 bytes, before the cipher sees it. */
const CRASHING_SOURCE =
  `require('node:worker_threads').parentPort.on('message', (m) => {` +
  ` if (m.type === 'job' && m.length === 13) process.exit(3) })\n` +
  CIPHER_WORKER_SOURCE

describe('cipher thread pool', () => {
  it('seals and opens to the same bytes as node:crypto on this thread, each job its own output', async () => {
    const pool = newPool()
    const key = newKey()
    // Sizes that finish out of order: big jobs are queued first.
    const sizes = [1 << 20, 17, 300_000, 1, 0, 65536, 1 << 20, 4096, 999_999, 12]
    const plains = sizes.map((size) => randomBytes(size))
    const sealed = await Promise.all(
      plains.map((plain, i) =>
        pool.run('seal', key, recordNonce(i, false), bufferOf(plain, TAG), plain.length),
      ),
    )
    sealed.forEach((output, i) => {
      const bytes = new Uint8Array(output.buffer, 0, output.length)
      expect(Buffer.from(bytes).equals(sealHere(key, recordNonce(i, false), plains[i]!))).toBe(true)
    })
    const opened = await Promise.all(
      sealed.map((output, i) =>
        pool.run('open', key, recordNonce(i, false), output.buffer, output.length),
      ),
    )
    opened.forEach((output, i) => {
      expect(output.length).toBe(sizes[i])
      expect(Buffer.from(output.buffer, 0, output.length).equals(plains[i]!)).toBe(true)
    })
  })

  it('moves the buffer instead of copying it: the caller cannot read it any more', async () => {
    const pool = newPool({ size: 1 })
    const key = newKey()
    const buffer = bufferOf(randomBytes(1000), TAG)
    const job = pool.run('seal', key, recordNonce(0, false), buffer, 1000)
    expect(buffer.byteLength).toBe(0)
    const output = await job
    expect(output.buffer.byteLength).toBe(1000 + TAG)
  })

  it('keeps several keys apart on the same threads', async () => {
    const pool = newPool({ size: 1 })
    const [a, b] = [newKey(), newKey()]
    const plain = randomBytes(5000)
    const nonce = recordNonce(1, true)
    const [sa, sb] = await Promise.all([
      pool.run('seal', a, nonce, bufferOf(plain, TAG), plain.length),
      pool.run('seal', b, nonce, bufferOf(plain, TAG), plain.length),
    ])
    expect(Buffer.from(sa.buffer, 0, sa.length).equals(sealHere(a, nonce, plain))).toBe(true)
    expect(Buffer.from(sb.buffer, 0, sb.length).equals(sealHere(b, nonce, plain))).toBe(true)
  })

  // Security: a record that does not authenticate yields no plaintext, only an error.
  it('rejects a tampered record, a wrong nonce and a record shorter than its tag', async () => {
    const pool = newPool()
    const key = newKey()
    const nonce = recordNonce(5, false)
    const sealed = sealHere(key, nonce, randomBytes(70_000))
    const flipped = Buffer.from(sealed)
    flipped[4000]! ^= 1
    await expect(
      pool.run('open', key, nonce, bufferOf(flipped, 0), flipped.length),
    ).rejects.toBeInstanceOf(CipherJobError)
    await expect(
      pool.run('open', key, recordNonce(5, true), bufferOf(sealed, 0), sealed.length),
    ).rejects.toBeInstanceOf(CipherJobError)
    await expect(pool.run('open', key, nonce, bufferOf(sealed, 0), 15)).rejects.toThrow(
      'Record shorter than its tag',
    )
    // The pool still works after refusals.
    const good = await pool.run('open', key, nonce, bufferOf(sealed, 0), sealed.length)
    expect(Buffer.from(good.buffer, 0, good.length).equals(openHere(key, nonce, sealed))).toBe(true)
  })

  it('fails the jobs of a thread that dies, and runs later jobs on a new one', async () => {
    const pool = newPool({ size: 1, source: CRASHING_SOURCE })
    const key = newKey()
    const plain = randomBytes(13)
    const crash = pool.run('seal', key, recordNonce(0, false), bufferOf(plain, TAG), 13)
    await expect(crash).rejects.toThrow(/cipher thread stopped \(exit code 3\)/)
    const other = randomBytes(14)
    const output = await pool.run('seal', key, recordNonce(0, false), bufferOf(other, TAG), 14)
    const bytes = new Uint8Array(output.buffer, 0, output.length)
    expect(Buffer.from(bytes).equals(sealHere(key, recordNonce(0, false), other))).toBe(true)
  })

  it('fails the jobs of a thread that throws', async () => {
    const source = `require('node:worker_threads').parentPort.on('message', (m) => {
      if (m.type === 'job') throw new Error('broken thread') })`
    const pool = newPool({ size: 1, source })
    await expect(
      pool.run('seal', newKey(), recordNonce(0, false), new ArrayBuffer(32), 16),
    ).rejects.toThrow(/cipher thread failed: broken thread/)
  })

  it('refuses a buffer that cannot move, and stays usable', async () => {
    const pool = newPool({ size: 1 })
    const key = newKey()
    const buffer = new ArrayBuffer(64)
    structuredClone(buffer, { transfer: [buffer] }) // detaches it
    await expect(pool.run('seal', key, recordNonce(0, false), buffer, 16)).rejects.toThrow()
    const output = await pool.run('seal', key, recordNonce(0, false), new ArrayBuffer(48), 32)
    expect(output.length).toBe(48)
  })

  it('fails running jobs on close, and refuses new ones', async () => {
    const pool = newPool({ size: 1 })
    const key = newKey()
    const big = 1 << 20
    const jobs = Array.from({ length: 6 }, (_, i) =>
      pool.run('seal', key, recordNonce(i, false), new ArrayBuffer(big + TAG), big).then(
        () => 'done',
        (error: unknown) => error,
      ),
    )
    await pool.close()
    const outcomes = await Promise.all(jobs)
    expect(outcomes.some((o) => o instanceof CipherJobError)).toBe(true)
    await expect(
      pool.run('seal', key, recordNonce(9, false), new ArrayBuffer(32), 16),
    ).rejects.toThrow('The cipher threads were stopped')
  })

  it('never keeps a process from exiting once its jobs are done', async () => {
    // This module in a node process of its own (TypeScript through tsx, as in the suites).
    const poolModule = fileURLToPath(new URL('./cipher-pool.ts', import.meta.url))
    const script = `
      import { createSecretKey, randomBytes } from 'node:crypto'
      const { CipherPool } = await import(${JSON.stringify(poolModule)})
      const pool = new CipherPool()
      const nonce = new Uint8Array(12)
      const out = await pool.run('seal', createSecretKey(randomBytes(32)), nonce, new ArrayBuffer(48), 32)
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
