/**
 * The server in a process of its own, as it runs in a deployment: started from an entry file and
 * ready once it prints its "listening on" line, which also names its address (PORT=0 works).
 */
import { spawn, type ChildProcess } from 'node:child_process'

import { hasExited, stopChild } from './stop-child.js'

const LISTENING = /listening on (http:\/\/\S+)/
/** Output kept for the error of a failed start or a test that reads it. */
const OUTPUT_LIMIT = 64 * 1024

export interface SpawnServerOptions {
  /** The server's entry, e.g. the built `dist/index.js`. */
  entry: string
  /** Node's options before the entry (the Node flags, `--import tsx`, a profiler). */
  nodeArgs?: readonly string[]
  /** The server's whole environment besides PATH; PORT defaults to 0. */
  env: Record<string, string>
  cwd?: string
  /** How long the server may take to listen; 30 s by default. */
  timeoutMs?: number
}

export interface SpawnedServer {
  child: ChildProcess
  /** The address the server printed, e.g. `http://127.0.0.1:40123`. */
  url: string
  port: number
  /** What the server printed on stdout and stderr so far (the last 64 KiB). */
  output(): string
  /** The exit code and signal, once the process has exited and all it printed has been read. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** SIGTERM, then SIGKILL after five seconds. */
  stop(): Promise<void>
}

/** Spawns the server and resolves once it listens; kills it and throws if it does not. */
export async function spawnServer(options: SpawnServerOptions): Promise<SpawnedServer> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.entry], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', PORT: '0', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const keep = (data: Buffer) => {
    output = (output + data.toString()).slice(-OUTPUT_LIMIT)
  }
  // Both streams are read to the end so that a talkative server never blocks on a full pipe.
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  // 'close', not 'exit': the pipes may still hold the last lines when the process has exited.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  )
  const timeoutMs = options.timeoutMs ?? 30_000
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the server did not listen in ${timeoutMs} ms:\n${output}`)),
        timeoutMs,
      )
      const watch = () => {
        const found = LISTENING.exec(output)?.[1]
        if (found === undefined) return
        clearTimeout(timer)
        child.stdout.off('data', watch)
        resolve(found)
      }
      child.stdout.on('data', watch)
      child.once('error', reject)
      void exited.then(({ code, signal }) => {
        clearTimeout(timer)
        reject(new Error(`the server exited (${code ?? signal}) before it listened:\n${output}`))
      })
    })
    return {
      child,
      url,
      port: Number(new URL(url).port),
      output: () => output,
      exited,
      stop: () => stopChild(child),
    }
  } catch (error) {
    if (!hasExited(child)) await stopChild(child)
    throw error
  }
}
