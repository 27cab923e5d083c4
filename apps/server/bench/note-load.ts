/**
 * The note load of the server benchmarks: notes created and viewed in pairs by wrk with
 * bench/notes.lua, reported as pairs per second and latency percentiles.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'

import { round, token } from './lib.js'

const NOTES_SCRIPT = fileURLToPath(new URL('notes.lua', import.meta.url))

export interface NoteSettings {
  maxViews: number
  expireSec: number
}

export interface NoteLoad {
  loadGenerator: 'wrk'
  clients: number
  seconds: number
  pairs: number
  pairsPerSec: number
  requests: number
  requestsPerSec: number
  p50Ms: number
  p99Ms: number
  errors: number
  firstError: string | null
}

/** What bench/notes.lua prints as its last line. */
interface WrkReport {
  durationUs: number
  requests: number
  created: number
  viewed: number
  failed: number
  socketErrors: number
  p50Us: number
  p99Us: number
  firstError: string
}

export interface NoteLoadOptions {
  /** The address the load goes to: a server or a proxy in front of several. */
  port: number
  settings: NoteSettings
  seconds: number
  clients: number
  /** Called with wrk's process, so the caller can stop it if the benchmark is cut short. */
  track: (child: ChildProcess) => ChildProcess
}

/**
 * `clients` connections, each creating a note and viewing one, again and again for `seconds`,
 * driven by wrk (bench/notes.lua). A load generator in Node cost nearly as much CPU per request as
 * the server, on the same two cores; wrk costs a fraction of that.
 */
export async function noteLoad(options: NoteLoadOptions): Promise<NoteLoad> {
  const { port, settings, clients, track } = options
  const child = track(
    spawn(
      'wrk',
      [
        '--threads',
        '1',
        '--connections',
        String(clients),
        '--duration',
        `${options.seconds}s`,
        '--timeout',
        '10s',
        '--script',
        NOTES_SCRIPT,
        `http://127.0.0.1:${port}`,
      ],
      {
        env: {
          PATH: process.env.PATH ?? '',
          NOTE_AUTH_TOKEN: token(),
          NOTE_MAX_VIEWS: String(settings.maxViews),
          NOTE_EXPIRE_SEC: String(settings.expireSec),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    ),
  )
  const output = tail(child)
  const lines: string[] = []
  child.stdout!.on('data', (data: Buffer) => lines.push(data.toString()))
  const [code] = (await once(child, 'exit')) as [number | null]
  const last = lines.join('').trim().split('\n').at(-1) ?? ''
  if (code !== 0 || !last.startsWith('{')) {
    throw new Error(`wrk exited with code ${code}:\n${output()}`)
  }
  const report = JSON.parse(last) as WrkReport
  const seconds = report.durationUs / 1e6
  const errors = report.failed + report.socketErrors
  return {
    loadGenerator: 'wrk',
    clients,
    seconds: round(seconds, 2),
    pairs: report.viewed,
    pairsPerSec: round(report.viewed / seconds),
    requests: report.requests,
    requestsPerSec: round(report.requests / seconds),
    p50Ms: round(report.p50Us / 1000, 2),
    p99Ms: round(report.p99Us / 1000, 2),
    errors,
    firstError:
      report.firstError !== ''
        ? report.firstError
        : errors > 0
          ? `${report.socketErrors} socket errors`
          : null,
  }
}

/** Keeps the last lines a child printed, to show why it stopped. */
function tail(child: ChildProcess): () => string {
  const lines: string[] = []
  const keep = (data: Buffer) => {
    lines.push(
      ...data
        .toString()
        .split('\n')
        .filter((line) => line !== ''),
    )
    lines.splice(0, Math.max(0, lines.length - 20))
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  return () => lines.join('\n')
}
