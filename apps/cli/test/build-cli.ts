/** Builds `dist/` before the suites run, so that they test the current source. */
import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { promisify } from 'node:util'

const run = promisify(execFile)

export default async function setup(): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  await run(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: new URL('..', import.meta.url).pathname,
  })
}
