/** Runs the command-line entry as a user would and checks what it prints. */
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { promisify } from 'node:util'

import { describe, expect, it } from 'vitest'

const run = promisify(execFile)
const ENTRY = new URL('../src/index.ts', import.meta.url).pathname
const PACKAGE_JSON = new URL('../package.json', import.meta.url)

function fileshare(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, ['--import', 'tsx', ENTRY, ...args])
}

describe('fileshare', () => {
  it('prints the package version for --version', async () => {
    const { version } = JSON.parse(await readFile(PACKAGE_JSON, 'utf8')) as { version: string }
    const { stdout, stderr } = await fileshare('--version')
    expect(stdout).toBe(`${version}\n`)
    expect(stderr).toBe('')
  })

  it('prints usage for --help', async () => {
    const { stdout } = await fileshare('--help')
    expect(stdout).toMatch(/^Usage: fileshare \[options\]/)
    expect(stdout).toContain('-V, --version')
  })

  it('opens with a shebang so the bin entry runs under node', async () => {
    expect(await readFile(ENTRY, 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/)
  })

  it('exits non-zero on an unknown option', async () => {
    await expect(fileshare('--nope')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("unknown option '--nope'"),
    })
  })
})
