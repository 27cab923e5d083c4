/**
 * The note load of `pnpm bench:server` needs wrk; this check runs first, so a machine without it
 * gets one line saying what to install instead of a stack trace from a failed spawn.
 */
import { spawn } from 'node:child_process'

export const WRK_MISSING =
  'wrk is not installed: install the Debian package wrk (apt-get install wrk)'

/** Null when `wrk` starts from the PATH of `env`, else the line to print. */
export async function wrkMissing(env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  const child = spawn('wrk', ['--version'], { stdio: 'ignore', env })
  // Listened to directly: `events.once` on 'exit' rejects when 'error' comes first.
  const error = await new Promise<Error | null>((resolve) => {
    child.once('exit', () => resolve(null))
    child.once('error', resolve)
  })
  if (error === null) return null
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') return WRK_MISSING
  throw error
}
