/**
 * Runs the built `fileshare` command as a child process, as a user would, with its own HOME and
 * config folder, and collects what it prints and its exit code.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { PEAK_RSS_NODE_ARGS, PEAK_RSS_STDIO, peakRssOf } from '@fileshare/testing'

export const CLI = new URL('../dist/index.js', import.meta.url).pathname

/**
 * The Node that runs the command: this one, or FILESHARE_TEST_CLI_NODE (scripts/test-node-lts.mjs
 * runs the command on Node 24 and 26 that way, while the suite and its server stay on this one).
 */
export const CLI_NODE = process.env.FILESHARE_TEST_CLI_NODE || process.execPath

export interface CliResult {
  code: number
  stdout: string
  stderr: string
  /** Peak RSS in bytes, when `measurePeakRss` was set. */
  peakRss?: number
}

export interface CliOptions {
  env?: Record<string, string>
  input?: string | Buffer
  cwd?: string
  /** Called with every piece of stderr as it arrives (to react to a login URL). */
  onStderr?: (text: string) => void
  /** Measures the command's peak RSS (see @fileshare/testing's peak-rss). */
  measurePeakRss?: boolean
  /**
   * The program and the arguments that run the command: the built `dist/index.js` under this
   * Node by default; an installed `fileshare` or the single executable otherwise.
   */
  command?: readonly string[]
  /** Called with the child process once started (to kill it mid-way). */
  onSpawn?: (child: ChildProcess) => void
}

/** A fresh HOME with its config folder; every test user starts with no history and no login. */
export async function newHome(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'fileshare-cli-home-'))
}

/** What `inbox get --all --json` answers: each upload's id and the paths it was saved to. */
export interface InboxDownloads {
  entries: Array<{ id: string; paths: string[] }>
}

export class CliUser {
  constructor(
    readonly home: string,
    readonly server: string,
  ) {}

  static async create(server: string): Promise<CliUser> {
    return new CliUser(await newHome(), server)
  }

  get configDir(): string {
    return join(this.home, '.config', 'fileshare')
  }

  run(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
    return runCli(args, {
      ...options,
      env: {
        HOME: this.home,
        XDG_CONFIG_HOME: join(this.home, '.config'),
        FILESHARE_SERVER: this.server,
        ...options.env,
      },
    })
  }

  /** Runs and fails the test with everything printed unless the exit code is `code`. */
  async ok(args: readonly string[], options: CliOptions = {}, code = 0): Promise<CliResult> {
    const result = await this.run(args, options)
    if (result.code !== code) {
      throw new Error(
        `fileshare ${args.join(' ')} exited ${result.code}, expected ${code}\n` +
          `stdout: ${result.stdout}\nstderr: ${result.stderr}`,
      )
    }
    return result
  }

  /** `ok` with `--json`, answering the parsed object. */
  async json<T = Record<string, unknown>>(
    args: readonly string[],
    options: CliOptions = {},
  ): Promise<T> {
    const result = await this.ok([...args, '--json'], options)
    return JSON.parse(result.stdout) as T
  }

  /** `inbox get <inbox-link> --all -o <out>`: every upload of the inbox saved under `out`. */
  getWholeInbox(inboxLink: string, out: string): Promise<InboxDownloads> {
    return this.json<InboxDownloads>(['inbox', 'get', inboxLink, '--all', '-o', out])
  }
}

export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  // Only what the command needs: nothing of the developer's own fileshare settings leaks in.
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env }
  const measure = options.measurePeakRss === true
  const [program, ...leading] = options.command ?? [
    CLI_NODE,
    ...(measure ? PEAK_RSS_NODE_ARGS : []),
    CLI,
  ]
  const child = spawn(program!, [...leading, ...args], {
    env,
    cwd: options.cwd,
    stdio: measure ? PEAK_RSS_STDIO : ['pipe', 'pipe', 'pipe'],
  })
  options.onSpawn?.(child)
  const peakRss = measure ? peakRssOf(child) : Promise.resolve(undefined)
  return new Promise((resolve, reject) => {
    let stdout = ''
    let stderr = ''
    child.stdout!.setEncoding('utf8').on('data', (text: string) => (stdout += text))
    child.stderr!.setEncoding('utf8').on('data', (text: string) => {
      stderr += text
      options.onStderr?.(text)
    })
    child.on('error', reject)
    child.on('close', (code) => {
      void peakRss.then((rss) =>
        resolve({
          code: code ?? -1,
          stdout,
          stderr,
          ...(rss === undefined ? {} : { peakRss: rss }),
        }),
      )
    })
    child.stdin!.end(options.input ?? '')
  })
}
