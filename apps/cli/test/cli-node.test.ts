/**
 * The command runs on CLI_NODE: this Node, or the one FILESHARE_TEST_CLI_NODE names, on which
 * scripts/test-node-lts.mjs runs the CLI's round trips.
 */
import { execFileSync } from 'node:child_process'

import { describe, expect, it } from 'vitest'

import { CLI_NODE, runCli } from './cli-runner.js'

describe('the Node under the command', () => {
  it('is the one the suite was given', async () => {
    const expected = execFileSync(CLI_NODE, ['--version']).toString().trim()
    const result = await runCli(['--version'], {
      env: { NODE_OPTIONS: '--import=data:text/javascript,process.stderr.write(process.version)' },
    })
    expect(result.code).toBe(0)
    expect(result.stderr).toBe(expected)
    if (process.env.FILESHARE_TEST_CLI_NODE) expect(expected).not.toBe(process.version)
  })
})
