/**
 * Where a command's words go. Results go to stdout (one JSON object with `--json`), status and
 * warnings to stderr; progress to stderr as a bar on a terminal, elsewhere (a log, a pipe) as a
 * plain line now and then, as curl and rsync do; none with `--json` or `--quiet`, which also
 * leaves out the status lines.
 */
import { createRequire } from 'node:module'

import type * as CliProgress from 'cli-progress'

import { formatBytes, formatRemaining } from './units.js'

export interface Progress {
  /** Bytes done so far; the total may be learnt late. */
  update(done: number, total?: number): void
  stop(): void
}

export interface Output {
  readonly json: boolean
  /** A line of the human result on stdout; nothing with `--json`. */
  print(line: string): void
  /** A status line on stderr; nothing with `--json`. */
  info(line: string): void
  /** A warning on stderr, also with `--json`. */
  warn(line: string): void
  /** The one JSON object of `--json` on stdout. */
  result(value: unknown): void
  /** A bar with bytes, rate and ETA on a terminal; a plain line now and then elsewhere. */
  progress(label: string, total: number): Progress
  /**
   * `value` as a QR code on stderr, also with `--json`; black on white on a terminal. The
   * generator is loaded only then, so other commands do not pay for it at start.
   */
  qr(value: string): Promise<void>
}

export interface OutputStreams {
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WritableStream & { isTTY?: boolean }
}

const NO_PROGRESS: Progress = { update: () => undefined, stop: () => undefined }

/** How often a plain progress line is written where stderr is no terminal. */
export const PROGRESS_LINE_MS = 10_000

export interface OutputOptions {
  /** No progress and no status lines: only results, warnings and errors. */
  quiet?: boolean | undefined
  /** Milliseconds since the epoch; tests pass their own. */
  now?: () => number
}

/**
 * `env` is the command's environment: `NO_COLOR` (set and not empty, as no-color.org says) draws
 * the QR code without colours even on a terminal.
 */
export function createOutput(
  json: boolean,
  streams: OutputStreams = { stdout: process.stdout, stderr: process.stderr },
  env: NodeJS.ProcessEnv = process.env,
  options: OutputOptions = {},
): Output {
  const { stdout, stderr } = streams
  const silent = json || options.quiet === true
  const now = options.now ?? Date.now
  return {
    json,
    print: (line) => void (json || stdout.write(`${line}\n`)),
    info: (line) => void (silent || stderr.write(`${line}\n`)),
    warn: (line) => void stderr.write(`${line}\n`),
    result: (value) => void stdout.write(`${JSON.stringify(value, null, 2)}\n`),
    progress: (label, total) => {
      if (silent) return NO_PROGRESS
      return stderr.isTTY === true
        ? progressBar(stderr, label, total)
        : progressLines(stderr, label, total, now)
    },
    qr: async (value) => {
      const { qrLines } = await import('./qr.js')
      const colour = stderr.isTTY === true && !env.NO_COLOR
      stderr.write(`${qrLines(value, colour).join('\n')}\n`)
    },
  }
}

/** Bytes per second over the last few seconds, so that the rate follows changes quickly. */
class RateMeter {
  private readonly samples: Array<[time: number, bytes: number]> = []

  add(bytes: number, now = Date.now()): number {
    // A resume goes back to the last byte the server kept: the window starts again from there.
    const last = this.samples.at(-1)
    if (last !== undefined && bytes < last[1]) this.samples.length = 0
    this.samples.push([now, bytes])
    while (this.samples.length > 2 && now - this.samples[0]![0] > 5000) this.samples.shift()
    const [t0, b0] = this.samples[0]!
    return now > t0 ? ((bytes - b0) * 1000) / (now - t0) : 0
  }
}

/**
 * Progress where no bar can be drawn: a line such as `Uploading: 12 MiB of 100 MiB (12%),
 * 3.1 MiB/s, 28s left` once every PROGRESS_LINE_MS, the first after one such interval.
 */
function progressLines(
  stream: NodeJS.WritableStream,
  label: string,
  total: number,
  now: () => number,
): Progress {
  const meter = new RateMeter()
  let size = total
  let next = now() + PROGRESS_LINE_MS
  let stopped = false
  return {
    update(done, newTotal) {
      if (stopped) return
      if (newTotal !== undefined) size = newTotal
      const at = now()
      const rate = meter.add(done, at)
      if (at < next) return
      next = at + PROGRESS_LINE_MS
      const percent = size > 0 ? ` (${Math.floor((done * 100) / size)}%)` : ''
      const left = formatRemaining(rate > 0 ? (size - done) / rate : Number.NaN)
      stream.write(
        `${label.trim()}: ${formatBytes(done)} of ${formatBytes(size)}${percent}, ` +
          `${formatBytes(rate)}/s, ${left} left\n`,
      )
    },
    stop() {
      stopped = true
    },
  }
}

function progressBar(stream: NodeJS.WritableStream, label: string, total: number): Progress {
  // Loaded only on a terminal: pipes and --json never draw a bar.
  const { Presets, SingleBar } = createRequire(import.meta.url)(
    'cli-progress',
  ) as typeof CliProgress
  const bar = new SingleBar(
    {
      stream,
      format: '{label} {bar} {percentage}% | {done} / {size} | {rate} | ETA {left}',
      barsize: 24,
      hideCursor: true,
      fps: 8,
      autopadding: true,
    },
    Presets.shades_classic,
  )
  const meter = new RateMeter()
  let size = total
  bar.start(Math.max(size, 1), 0, {
    label,
    done: formatBytes(0),
    size: formatBytes(size),
    rate: '– /s',
    left: formatRemaining(Number.NaN),
  })
  let stopped = false
  return {
    update(done, newTotal) {
      if (stopped) return
      if (newTotal !== undefined && newTotal !== size) {
        size = newTotal
        bar.setTotal(Math.max(size, 1))
      }
      const rate = meter.add(done)
      bar.update(done, {
        done: formatBytes(done),
        size: formatBytes(size),
        rate: `${formatBytes(rate)}/s`,
        left: formatRemaining(rate > 0 ? (size - done) / rate : Number.NaN),
      })
    },
    stop() {
      if (stopped) return
      stopped = true
      bar.stop()
    },
  }
}
