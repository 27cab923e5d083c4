/**
 * Runs podman and podman-compose with the settings every run here needs: the runc runtime and
 * raised ulimits through a containers.conf (crun and the default open-file limit fail on some
 * CI machines), and the Docker image format, which keeps the image's HEALTHCHECK.
 */
import { execFile, spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'

import { cacheDir } from './cache-dir.js'

const run = promisify(execFile)

const CONTAINERS_CONF = `[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]

[engine]
runtime = "runc"
`

let env: NodeJS.ProcessEnv | undefined

/** The environment of every podman command: the containers.conf above and the image format. */
export function podmanEnv(): NodeJS.ProcessEnv {
  if (env) return env
  const dir = cacheDir()
  mkdirSync(dir, { recursive: true })
  const conf = join(dir, 'containers.conf')
  writeFileSync(conf, CONTAINERS_CONF)
  env = { ...process.env, CONTAINERS_CONF: conf, BUILDAH_FORMAT: 'docker' }
  return env
}

/**
 * What this machine lacks for the suite, as short phrases: the commands not on PATH, and root,
 * which debootstrap needs to build the base image.
 */
export function unmetNeeds(): string[] {
  const wanted = ['podman', 'podman-compose', 'debootstrap', 'runc']
  const missing = wanted.filter(
    (name) => spawnSync('sh', ['-c', `command -v ${name}`]).status !== 0,
  )
  const needs = missing.map((name) => `${name} is not installed`)
  if (process.getuid?.() !== 0) needs.push('it runs as root only')
  return needs
}

export interface RunOptions {
  cwd?: string
  /** Variables added to the podman environment. */
  env?: Record<string, string>
  timeoutMs?: number
}

export interface RunResult {
  stdout: string
  stderr: string
}

/** `command args…` with the podman environment; rejects with its output when it fails. */
export async function runTool(
  command: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<RunResult> {
  return run(command, [...args], {
    env: { ...podmanEnv(), ...options.env },
    cwd: options.cwd,
    timeout: options.timeoutMs ?? 120_000,
    maxBuffer: 64 * 1024 * 1024,
  })
}

export function podman(args: readonly string[], options?: RunOptions): Promise<RunResult> {
  return runTool('podman', args, options)
}

/** The exit status of `podman args…`, for commands whose failure is the expected answer. */
export async function podmanStatus(args: readonly string[]): Promise<number> {
  return podman(args).then(
    () => 0,
    (err: { code?: unknown }) => (typeof err.code === 'number' ? err.code : -1),
  )
}

/**
 * Removes the other tags of `keep`'s repository: images of earlier recipes, which no run needs
 * any more. An image still used by a container is refused and stays.
 */
export async function removeOtherTags(keep: string): Promise<void> {
  const repository = keep.slice(0, keep.lastIndexOf(':'))
  const { stdout } = await podman(['images', '--format', '{{.Repository}}:{{.Tag}}', repository])
  const others = stdout
    .split('\n')
    .filter((name) => name.startsWith(`${repository}:`) && name !== keep)
  for (const image of others) await podman(['rmi', image]).catch(() => undefined)
}
