/**
 * A throwaway PostgreSQL server for the suites that run on PostgreSQL: a cluster made by `initdb`
 * in a temporary folder, served by `postgres` on a free loopback port (and a Unix socket in the
 * folder), stopped with the suite. Each server under test gets its own database, so they share
 * nothing. One cluster can serve a whole test run: its address goes to the test files, which copy
 * their databases from a template (`sharedDatabases`). PostgreSQL refuses to run as root: as root
 * it runs as the `postgres` system user.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, rmSync } from 'node:fs'
import { chown, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

import { installUnderCi } from './debian-packages.js'
import { freePort } from './free-port.js'
import { portOpen } from './port-open.js'
import { hasExited, stopChild } from './stop-child.js'

const run = promisify(execFile)

const BIN = '/usr/lib/postgresql/15/bin'
const PACKAGES = ['postgresql']
const SYSTEM_USER = 'postgres'
/** The role the suites connect as (`initdb -U`), trusted on loopback and the socket. */
const ROLE = 'fileshare'
const START_TIMEOUT_MS = 30_000
/** How many databases `drop` removes side by side. */
const DROPS_AT_ONCE = 8
/** PostgreSQL's fast shutdown, which ends open connections (SIGTERM waits for every client). */
const FAST_SHUTDOWN = 'SIGINT'

/** Where a running cluster takes connections, as a test run hands it to its test files. */
export interface PostgresAddress {
  /** The loopback port the server listens on. */
  port: number
  /** The folder of its Unix socket. */
  socketDir: string
}

/** Makes databases in a cluster; `drop` removes every one it made. */
export interface PostgresDatabases {
  /** Creates a database, a copy of `template` when given, and answers its postgres:// address. */
  createDatabase(template?: string): Promise<string>
  drop(): Promise<void>
}

export interface Postgres extends PostgresAddress, PostgresDatabases {
  /** Stops the server, keeping its data; `start()` brings it back on the same port. */
  pause(): Promise<void>
  start(): Promise<void>
  stop(): Promise<void>
}

/**
 * Why the PostgreSQL suites cannot run here, or null when they can. Under CI=true a missing
 * server is installed from Debian's packages (as root) or the suite fails; outside CI it is
 * only reported.
 */
export async function postgresMissing(): Promise<string | null> {
  if (existsSync(join(BIN, 'postgres'))) return null
  return installUnderCi('PostgreSQL 15', PACKAGES, 'the PostgreSQL suites are skipped')
}

/** A command as the user PostgreSQL runs as: itself, or `postgres` when this process is root. */
function asServerUser(command: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [command, args]
  return [
    'setpriv',
    [`--reuid=${SYSTEM_USER}`, `--regid=${SYSTEM_USER}`, '--init-groups', command, ...args],
  ]
}

export async function startPostgres(): Promise<Postgres> {
  const dir = await mkdtemp(join(tmpdir(), 'fileshare-postgres-'))
  const data = join(dir, 'data')
  let child: ChildProcess | undefined
  const killAll = () => {
    if (child && !hasExited(child)) child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
  // A crashed test process must not leave the server behind.
  process.once('exit', killAll)
  try {
    if (process.getuid?.() === 0) {
      const { stdout } = await run('id', ['-u', SYSTEM_USER])
      const { stdout: group } = await run('id', ['-g', SYSTEM_USER])
      await chown(dir, Number(stdout.trim()), Number(group.trim()))
    }
    const [initdb, initArgs] = asServerUser(join(BIN, 'initdb'), [
      '-D',
      data,
      '-U',
      ROLE,
      '--auth=trust',
      '--encoding=UTF8',
      '--no-sync',
    ])
    await run(initdb, initArgs, { timeout: START_TIMEOUT_MS })
    const port = await freePort()
    const launch = async () => {
      const [postgres, args] = asServerUser(join(BIN, 'postgres'), [
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        // A test server keeps nothing worth an fsync.
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'max_connections=200',
      ])
      const started = spawn(postgres, args, { stdio: ['ignore', 'ignore', 'pipe'] })
      let log = ''
      started.stderr?.on('data', (chunk: Buffer) => {
        log = (log + chunk.toString()).slice(-4000)
      })
      child = started
      await waitForPort(port, started, () => log)
      // Accepting TCP precedes accepting queries by a moment: wait until a database can be made.
      await waitUntil(
        () => isReady(dir, port),
        started,
        () => log,
      )
    }
    await launch()
    const databases = sharedDatabases({ port, socketDir: dir })
    return {
      port,
      socketDir: dir,
      ...databases,
      async pause() {
        if (child) await stopChild(child, FAST_SHUTDOWN)
      },
      start: launch,
      async stop() {
        if (child) await stopChild(child, FAST_SHUTDOWN)
        process.removeListener('exit', killAll)
        await rm(dir, { recursive: true, force: true })
      },
    }
  } catch (error) {
    killAll()
    process.removeListener('exit', killAll)
    throw error
  }
}

/** The name of a database from its postgres:// address. */
export function databaseName(url: string): string {
  return new URL(url).pathname.slice(1)
}

/**
 * Databases in the cluster at `address`, started elsewhere (a run's global setup). A copy of a
 * migrated template costs a file copy where a new database would replay every migration; the
 * template must have no open connection while it is copied.
 */
export function sharedDatabases(address: PostgresAddress): PostgresDatabases {
  const made: string[] = []
  const sql = (statements: string[]) =>
    run(join(BIN, 'psql'), [
      ...['-h', address.socketDir, '-p', String(address.port), '-U', ROLE, '-d', 'postgres'],
      ...['-v', 'ON_ERROR_STOP=1', '-q'],
      ...statements.flatMap((statement) => ['-c', statement]),
    ])
  return {
    async createDatabase(template) {
      const name = `fileshare_${randomBytes(6).toString('hex')}`
      const copy = template === undefined ? '' : ` TEMPLATE "${databaseName(template)}"`
      await sql([`CREATE DATABASE "${name}"${copy}`])
      made.push(name)
      return `postgres://${ROLE}@127.0.0.1:${address.port}/${name}`
    },
    async drop() {
      // Each drop waits for a checkpoint; drops under way together share one.
      const names = made.splice(0)
      for (let at = 0; at < names.length; at += DROPS_AT_ONCE) {
        const batch = names.slice(at, at + DROPS_AT_ONCE)
        await Promise.all(
          batch.map((name) => sql([`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`])),
        )
      }
    },
  }
}

async function isReady(dir: string, port: number): Promise<boolean> {
  try {
    await run(join(BIN, 'pg_isready'), [
      '-h',
      dir,
      '-p',
      String(port),
      '-U',
      ROLE,
      '-d',
      'postgres',
    ])
    return true
  } catch {
    return false
  }
}

function waitForPort(port: number, child: ChildProcess, log: () => string): Promise<void> {
  return waitUntil(() => portOpen(port), child, log)
}

async function waitUntil(
  ready: () => Promise<boolean>,
  child: ChildProcess,
  log: () => string,
): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS
  while (!(await ready())) {
    if (hasExited(child)) throw new Error(`postgres exited at start:\n${log()}`)
    if (Date.now() > deadline) throw new Error(`postgres did not start in time:\n${log()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
