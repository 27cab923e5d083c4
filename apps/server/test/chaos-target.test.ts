/**
 * A staging cluster as the chaos run's target (chaos/target.ts): the file is checked before
 * anything runs, and only the faults whose commands the operator gave are carried out, each
 * command run with the instance's number in place of `{instance}`.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { readTarget, targetCluster } from '../chaos/target.js'

describe('a chaos target', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fileshare-chaos-target-'))
  })
  afterEach(() => rm(dir, { recursive: true, force: true }))

  const write = async (value: unknown) => {
    const path = join(dir, 'target.json')
    await writeFile(path, JSON.stringify(value))
    return path
  }

  it('refuses a file with a mistake, naming it', async () => {
    await expect(readTarget(await write({ url: 'ftp://x', instances: 3 }))).rejects.toThrow(/http/)
    await expect(readTarget(await write({ url: 'https://x', instances: 0 }))).rejects.toThrow(
      /instances/,
    )
    const unknown = { url: 'https://x', instances: 1, commands: { reboot: 'true' } }
    await expect(readTarget(await write(unknown))).rejects.toThrow(/unknown command reboot/)
  })

  it('carries out only the faults it has commands for, per instance', async () => {
    const log = join(dir, 'log')
    const target = await readTarget(
      await write({
        url: 'https://staging.example.org/',
        instances: 2,
        commands: {
          kill: `echo kill {instance} >> ${log}`,
          start: `echo start {instance} >> ${log}`,
        },
      }),
    )
    expect(target.url).toBe('https://staging.example.org')
    const cluster = targetCluster(target)
    expect(cluster.can('kill')).toBe(true)
    for (const kind of ['term', 'pause', 'postgres', 'storage', 'cut'] as const) {
      expect(cluster.can(kind)).toBe(false)
    }
    await cluster.kill(1, 10)
    expect(await readFile(log, 'utf8')).toBe('kill 1\nstart 1\n')
  })
})
