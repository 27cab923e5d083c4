/**
 * The V8 flags the server wants on a small machine: the condition, the start scripts that pass
 * them, and the line a server prints at start about them; and those it sets on itself.
 */
import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

import { afterAll, describe, expect, it } from 'vitest'

import {
  describeNodeFlags,
  missingNodeFlags,
  SMALL_MACHINE_FLAGS,
  wantedNodeFlags,
} from '../src/node-flags.js'

const SERVER_DIR = fileURLToPath(new URL('..', import.meta.url))
const run = promisify(execFile)
const dirs: string[] = []

afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))))

/** `args` run by Node from the server's sources, on one core when `oneCore` (through taskset). */
function nodeCommand(args: string[], oneCore: boolean): [string, string[]] {
  const node = [process.execPath, '--import', 'tsx', ...args]
  return oneCore ? ['taskset', ['-c', '0', ...node]] : [node[0]!, node.slice(1)]
}

/** Starts the server from its sources with `flags`; resolves with its output once it listens. */
async function startupOutput(flags: string[], oneCore: boolean): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'fileshare-flags-'))
  dirs.push(dataDir)
  const [command, args] = nodeCommand([...flags, 'src/index.ts'], oneCore)
  const child = spawn(command, args, {
    cwd: SERVER_DIR,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stderr.on('data', (data: Buffer) => (output += data.toString()))
  try {
    for await (const data of child.stdout) {
      output += (data as Buffer).toString()
      if (output.includes('listening on')) break
    }
    return output
  } finally {
    child.kill('SIGKILL')
    if (child.exitCode === null) await once(child, 'exit')
  }
}

describe('Node flags', () => {
  it('are wanted on one or two cores only', () => {
    expect(wantedNodeFlags(1)).toEqual(SMALL_MACHINE_FLAGS)
    expect(wantedNodeFlags(2)).toEqual(SMALL_MACHINE_FLAGS)
    expect(wantedNodeFlags(3)).toEqual([])
    expect(wantedNodeFlags(16)).toEqual([])
  })

  it('names the wanted flags a process was started without', () => {
    expect(missingNodeFlags([], 2)).toEqual([...SMALL_MACHINE_FLAGS])
    expect(missingNodeFlags(['--import', 'tsx', ...SMALL_MACHINE_FLAGS], 2)).toEqual([])
    expect(missingNodeFlags([SMALL_MACHINE_FLAGS[0]!], 1)).toEqual(SMALL_MACHINE_FLAGS.slice(1))
    expect(missingNodeFlags([], 16)).toEqual([])
  })

  it('describes the decision for each branch', () => {
    expect(describeNodeFlags([], 16)).toBe("fileshare: 16 cores, V8's parallel garbage collection")
    expect(describeNodeFlags([...SMALL_MACHINE_FLAGS], 2)).toBe(
      "fileshare: 2 cores, garbage collection on the server's thread",
    )
    const missing = describeNodeFlags([], 1)
    expect(missing).toMatch(/^fileshare: 1 core, but Node was started without /)
    for (const flag of SMALL_MACHINE_FLAGS) expect(missing).toContain(flag)
    expect(missing).toContain('docs/configuration.md')
  })

  it('are chosen by the start scripts of the repository and of the server package', async () => {
    const scripts = {
      '../../../package.json': 'node $(node apps/server/dist/print-node-flags.js) apps/',
      '../package.json': 'node $(node dist/print-node-flags.js) dist/index.js',
    }
    for (const [path, expected] of Object.entries(scripts)) {
      const manifest = JSON.parse(await readFile(new URL(path, import.meta.url), 'utf8')) as {
        scripts: { start: string }
      }
      expect(manifest.scripts.start).toContain(expected)
    }
  })

  it('printed for the start scripts follow the cores the process may use', async () => {
    const print = async (oneCore: boolean) => {
      const [command, args] = nodeCommand(['src/print-node-flags.ts'], oneCore)
      return (await run(command, args, { cwd: SERVER_DIR })).stdout.trim()
    }
    expect(await print(true)).toBe(SMALL_MACHINE_FLAGS.join(' '))
    expect(await print(false)).toBe(wantedNodeFlags(availableParallelism()).join(' '))
  })

  it('a server on one core says which are missing, and says nothing is missing with them', async () => {
    const without = await startupOutput([], true)
    expect(without).toContain('listening on')
    expect(without).toContain('fileshare: 1 core, but Node was started without')

    const withFlags = await startupOutput([...SMALL_MACHINE_FLAGS], true)
    expect(withFlags).toContain("fileshare: 1 core, garbage collection on the server's thread")
  }, 60_000)

  it('a started server makes no pretenuring decision, however long its objects live', async () => {
    // A load that V8 pretenures: objects of one literal kept past many young collections. V8
    // traces each decision; stdbuf makes its lines reach the pipe as they are printed.
    const dir = await mkdtemp(join(tmpdir(), 'fileshare-pretenure-'))
    dirs.push(dir)
    const load = join(dir, 'load.mjs')
    await writeFile(
      load,
      `process.on('SIGUSR2', () => {
        console.log('load begins')
        const kept = []
        for (let round = 0; round < 200; round++) {
          for (let i = 0; i < 20000; i++) kept.push({ i, list: [i] })
          if (kept.length > 200000) kept.length = 0
        }
        console.log('load ends')
      })`,
    )
    const trace = ['--trace-pretenuring', '--trace-pretenuring-statistics', '--import', load]
    const [node, args] = nodeCommand([...trace, 'src/index.ts'], false)
    const child = spawn('stdbuf', ['-oL', node, ...args], {
      cwd: SERVER_DIR,
      env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let output = ''
    let loaded = false
    try {
      for await (const data of child.stdout) {
        output += (data as Buffer).toString()
        if (!loaded && output.includes('listening on')) loaded = child.kill('SIGUSR2')
        if (output.includes('load ends')) break
      }
    } finally {
      child.kill('SIGKILL')
      if (child.exitCode === null) await once(child, 'exit')
    }
    const during = output.slice(output.indexOf('load begins'))
    expect(during).toContain('load ends')
    expect(during.match(/pretenuring: AllocationSite.*=>.*/g) ?? []).toEqual([])
  }, 60_000)

  it("a server prints the decision for this machine's cores", async () => {
    const output = await startupOutput([...wantedNodeFlags()], false)
    expect(output).toContain(describeNodeFlags(wantedNodeFlags(), availableParallelism()))
  }, 30_000)
})
