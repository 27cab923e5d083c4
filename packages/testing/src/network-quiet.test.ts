import { spawnSync } from 'node:child_process'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { describe, expect, it } from 'vitest'

import { holdNetworkQuiet } from './network-quiet.js'

const lockIn = async () => join(await mkdtemp(join(tmpdir(), 'network-quiet-')), 'lock')

describe('the network-quiet lock', () => {
  it('makes a second holder wait until the first releases it', async () => {
    const lock = await lockIn()
    const first = await holdNetworkQuiet('first', { lock, pollMs: 10 })
    const events: string[] = []
    const second = holdNetworkQuiet('second', { lock, pollMs: 10 }).then((release) => {
      events.push('second took it')
      return release
    })
    await new Promise((resolve) => setTimeout(resolve, 200))
    events.push('first releases')
    await first()
    await (
      await second
    )()
    expect(events).toEqual(['first releases', 'second took it'])
  })

  it('takes over a lock whose holder has died', async () => {
    const lock = await lockIn()
    // A pid that no longer runs: a child that has exited.
    const { pid } = spawnSync(process.execPath, ['-e', '0'])
    await mkdir(lock)
    await writeFile(join(lock, 'owner'), JSON.stringify({ pid, holder: 'gone' }))
    const release = await holdNetworkQuiet('next', { lock, pollMs: 10, maxWaitMs: 2000 })
    await release()
  })

  it('fails after the longest wait while a living holder keeps it', async () => {
    const lock = await lockIn()
    const held = await holdNetworkQuiet('keeper', { lock })
    await expect(holdNetworkQuiet('late', { lock, pollMs: 10, maxWaitMs: 100 })).rejects.toThrow(
      /keeper held/,
    )
    await held()
  })
})
