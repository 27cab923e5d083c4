/** Builds `dist/` before the suites run, so that they test the current source as it ships. */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

export default async function setup(): Promise<void> {
  await run(process.execPath, ['--import', 'tsx', 'scripts/bundle.ts'], {
    cwd: new URL('..', import.meta.url).pathname,
  })
}
