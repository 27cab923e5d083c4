/**
 * Pieces the server benchmarks share: the built server in a process of its own, a cheap reusable
 * payload, one HTTP request read whole, and a `wrk` load.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http'
import { fileURLToPath } from 'node:url'

import { freePort, spawnServer, type SpawnedServer } from '@fileshare/testing'

import { wantedNodeFlags } from '../src/node-flags.js'

export const MiB = 1024 * 1024
export const SERVER_ENTRY = fileURLToPath(new URL('../dist/index.js', import.meta.url))

/**
 * Node's options for the built server: the flags `pnpm start` runs it with, then
 * BENCH_SERVER_NODE_ARGS (to profile it under load, e.g. "--cpu-prof").
 */
export const SERVER_NODE_ARGS = [
  ...wantedNodeFlags(),
  ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean),
]

export const mbps = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000)
export const round = (n: number, digits = 0) => Number(n.toFixed(digits))
export const token = (bytes = 32) => randomBytes(bytes).toString('base64url')

/** Random once, reused: the server never decrypts, so repeated bytes cost it nothing extra. */
const BLOCK = randomBytes(16 * MiB)

/** Slice `index` of a payload cut into pieces of `length` bytes. */
export function payload(index: number, length: number): Buffer {
  const start = (index * length) % (BLOCK.length - length + 1)
  return BLOCK.subarray(start, start + length)
}

/**
 * The built server with SERVER_NODE_ARGS on a free loopback port, which is also its BASE_URL (the
 * WebSocket upload checks Origin against it), no rate limit, logging errors; `env` adds to that.
 */
export async function startBuiltServer(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<SpawnedServer> {
  // A port free when picked may be taken by another process before the server listens on it:
  // the start is then tried again on another.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort()
    try {
      return await spawnServer({
        entry: SERVER_ENTRY,
        nodeArgs: SERVER_NODE_ARGS,
        env: {
          PORT: String(port),
          HOST: '127.0.0.1',
          BASE_URL: `http://127.0.0.1:${port}`,
          DATA_DIR: dataDir,
          LOG_LEVEL: 'error',
          RATE_LIMIT_MAX: '0',
          ...env,
        },
      })
    } catch (error) {
      if (attempt === 3 || !String(error).includes('EADDRINUSE')) throw error
    }
  }
}

export interface Answer {
  status: number
  headers: IncomingMessage['headers']
  body: Buffer
}

export interface RequestOptions {
  method: string
  path: string
  headers?: Record<string, string>
  body?: Buffer
}

/** One request over `agent`; the whole response body is read. */
export function send(port: number, agent: Agent, options: RequestOptions): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        agent,
        method: options.method,
        path: options.path,
        headers: { ...options.headers, 'content-length': String(options.body?.length ?? 0) },
      },
      (res: IncomingMessage) => {
        const parts: Buffer[] = []
        res.on('data', (part: Buffer) => parts.push(part))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(parts),
          }),
        )
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

export function expectStatus(what: string, answer: Answer, status: number): void {
  if (answer.status !== status) {
    throw new Error(`${what} answered ${answer.status}: ${answer.body.toString().slice(0, 300)}`)
  }
}

/** What a `wrk` run of bench/limits.lua measured. */
export interface WrkLoad {
  requestsPerSec: number
  p50Ms: number
  p99Ms: number
  non2xx: number
}

/**
 * `wrk` with bench/limits.lua against `port` for `seconds` (2 threads, `connections`); `env`
 * sets the script's LIMITS_CLIENTS, BENCH_PATH and BENCH_AUTHORIZATION.
 */
export async function wrkLoad(
  port: number,
  seconds: number,
  connections: number,
  env: Record<string, string>,
): Promise<WrkLoad> {
  const child = spawn(
    'wrk',
    ['-t2', `-c${connections}`, `-d${seconds}s`, '-s', WRK_SCRIPT, `http://127.0.0.1:${port}`],
    { env: { ...process.env, ...env } },
  )
  let out = ''
  child.stdout.on('data', (data: Buffer) => (out += data.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  const last = out.trim().split('\n').at(-1) ?? ''
  if (code !== 0 || !last.startsWith('{')) throw new Error(`wrk failed (${code}):\n${out}`)
  const r = JSON.parse(last) as Record<string, number>
  return {
    requestsPerSec: round(r.requests! / (r.durationUs! / 1e6)),
    p50Ms: round(r.p50Us! / 1000, 2),
    p99Ms: round(r.p99Us! / 1000, 2),
    non2xx: r.non2xx!,
  }
}

const WRK_SCRIPT = fileURLToPath(new URL('limits.lua', import.meta.url))
