/** Runs the command-line entry as a user would and checks what it prints. */
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { promisify } from 'node:util'

import { describe, expect, it } from 'vitest'

import { runCli } from './cli-runner.js'

const run = promisify(execFile)
const ENTRY = new URL('../src/index.ts', import.meta.url).pathname
const PACKAGE_JSON = new URL('../package.json', import.meta.url)

function fileshare(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, ['--import', 'tsx', ENTRY, ...args])
}

const COMMANDS = [
  ['send'],
  ['get'],
  ['note'],
  ['note', 'get'],
  ['note', 'info'],
  ['request'],
  ['request', 'send'],
  ['inbox'],
  ['inbox', 'get'],
  ['inbox', 'rm'],
  ['inbox', 'close'],
  ['inbox', 'delete'],
  ['delete'],
  ['ls'],
  ['login'],
  ['logout'],
  ['whoami'],
]

describe('fileshare', () => {
  it('prints the package version for --version', async () => {
    const { version } = JSON.parse(await readFile(PACKAGE_JSON, 'utf8')) as { version: string }
    const { stdout, stderr } = await fileshare('--version')
    expect(stdout).toBe(`${version}\n`)
    expect(stderr).toBe('')
  })

  it('prints usage with every command and the exit codes for --help', async () => {
    const { stdout } = await fileshare('--help')
    expect(stdout).toMatch(/^Usage: fileshare \[options\] \[command\]/)
    expect(stdout).toContain('-V, --version')
    for (const [name] of COMMANDS) expect(stdout).toContain(`  ${name} `)
    expect(stdout).toContain('Exit codes:')
  })

  it('opens with a shebang so the bin entry runs under node', async () => {
    expect(await readFile(ENTRY, 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/)
  })

  it('exits 1 on an unknown option', async () => {
    await expect(fileshare('--nope')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("unknown option '--nope'"),
    })
  })

  it.each(COMMANDS.map((c) => [c.join(' ')]))('has --help with an example for %s', async (name) => {
    const result = await runCli([...name.split(' '), '--help'])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`Usage: fileshare ${name} `)
    expect(result.stdout).toMatch(/Examples:\n {2}\$ fileshare /)
  })

  it.each(COMMANDS.map((c) => [c.join(' ')]))('wraps --help of %s to 80 columns', async (name) => {
    const { stdout } = await runCli([...name.split(' '), '--help'])
    const help = stdout.split('\nExamples:')[0]!
    const long = help.split('\n').filter((line) => line.length > 80)
    expect(long).toEqual([])
  })

  it('exits 1 with a message on a missing argument, with --json as well', async () => {
    const result = await runCli(['get', '--json'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("missing required argument 'link'")
    expect(JSON.parse(result.stdout)).toMatchObject({ exitCode: 1 })
  })

  it('names a --server that is not fileshare and exits 3', async () => {
    // Any other web server: a 404 page for /api/config, or a page that is not JSON.
    const other = createServer((request, response) => {
      if (request.url === '/html/api/config') {
        response.writeHead(200, { 'Content-Type': 'text/html' }).end('<html></html>')
      } else {
        response.writeHead(404, { 'Content-Type': 'text/html' }).end('<h1>Not found</h1>')
      }
    })
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`
    try {
      const missing = await runCli(['note', '--server', url], { input: 'hello' })
      expect(missing.code).toBe(3)
      expect(missing.stderr).toBe(
        `fileshare: ${url} does not look like a fileshare server (GET /api/config answered 404)\n`,
      )
      const html = await runCli(['note', '--server', `${url}/html`], { input: 'hello' })
      expect(html.code).toBe(3)
      expect(html.stderr).toContain(
        `${url}/html does not look like a fileshare server (GET /api/config answered with something that is not JSON)`,
      )
    } finally {
      await new Promise((resolve) => other.close(resolve))
    }
  })
})
