/**
 * A staging cluster as a chaos run's target (`pnpm chaos --target FILE`): its address, and what
 * the operator lets the run reach, from a JSON file. The database and the bucket, when given, are
 * read by the invariants; each kind of fault is carried out by the operator's shell commands (an
 * ssh to a host, a systemctl, a docker kill), `{instance}` standing for the instance's number. A
 * kind whose commands are missing is left out of the schedule. The processes themselves are not
 * watched: exits, logs and memory are for the operator's monitoring.
 * May touch: the file it is given, the shell commands it names, the target through its clients.
 */
import { exec } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { promisify } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'

import type { BucketAccess, ChaosCluster } from './cluster.js'
import type { FaultKind } from './schedule.js'

const run = promisify(exec)
const COMMAND_TIMEOUT_MS = 120_000

const COMMANDS = [
  'kill',
  'term',
  'start',
  'pause',
  'resume',
  'postgresStop',
  'postgresStart',
  'storageStop',
  'storageStart',
] as const
type CommandName = (typeof COMMANDS)[number]

/** The commands each kind of fault needs. */
const NEEDS: Record<FaultKind, readonly CommandName[]> = {
  kill: ['kill', 'start'],
  term: ['term', 'start'],
  pause: ['pause', 'resume'],
  postgres: ['postgresStop', 'postgresStart'],
  storage: ['storageStop', 'storageStart'],
  cut: [],
}

export interface TargetFile {
  /** The service's address, as its clients use it. */
  url: string
  /** How many instances `{instance}` counts through (0 to instances - 1). */
  instances: number
  databaseUrl?: string
  storage?: BucketAccess
  commands: Partial<Record<CommandName, string>>
}

/** Reads and checks the target file; a mistake in it is named before anything runs. */
export async function readTarget(path: string): Promise<TargetFile> {
  const value = JSON.parse(await readFile(path, 'utf8')) as Partial<TargetFile>
  const url = new URL(String(value.url))
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('url must be http(s)')
  if (!Number.isSafeInteger(value.instances) || value.instances! < 1) {
    throw new Error('instances must be a whole number above 0')
  }
  const commands = value.commands ?? {}
  for (const [name, command] of Object.entries(commands)) {
    if (!COMMANDS.includes(name as CommandName)) throw new Error(`unknown command ${name}`)
    if (typeof command !== 'string' || command.trim() === '') throw new Error(`empty ${name}`)
  }
  return { ...(value as TargetFile), url: url.href.replace(/\/$/, ''), commands }
}

export function targetCluster(target: TargetFile): ChaosCluster {
  const command = async (name: CommandName, instance?: number) => {
    const text = target.commands[name]!.replaceAll('{instance}', String(instance ?? ''))
    await run(text, { timeout: COMMAND_TIMEOUT_MS })
  }
  const outage =
    (stop: CommandName, start: CommandName) =>
    async (index: number | undefined, holdMs: number) => {
      await command(stop, index)
      await sleep(holdMs)
      await command(start, index)
    }
  return {
    url: target.url,
    databaseUrl: target.databaseUrl ?? null,
    storage: target.storage ?? null,
    instances: [],
    unexpected: [],
    can: (kind) => kind !== 'cut' && NEEDS[kind].every((name) => target.commands[name]),
    collectGarbage: async () => undefined,
    kill: outage('kill', 'start'),
    term: outage('term', 'start'),
    pause: outage('pause', 'resume'),
    restartPostgres: (holdMs) => outage('postgresStop', 'postgresStart')(undefined, holdMs),
    restartStorage: (holdMs) => outage('storageStop', 'storageStart')(undefined, holdMs),
    cut: () => undefined,
    logs: () => [],
    stop: async () => undefined,
  }
}
