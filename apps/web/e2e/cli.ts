/**
 * Runs the built command-line client (`node apps/cli/dist/index.js`) as a child process, for the
 * cases where the browser and the command line exchange links.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const CLI_ENTRY = fileURLToPath(new URL('../../cli/dist/index.js', import.meta.url))

export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

/** Runs `fileshare …args` with a private config directory; never throws on a non-zero exit. */
export function runCli(
  args: string[],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CliResult> {
  if (!existsSync(CLI_ENTRY)) {
    throw new Error(`no built command line at ${CLI_ENTRY}: run pnpm --filter fileshare-cli build`)
  }
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI_ENTRY, ...args],
      {
        env: { ...process.env, NO_COLOR: '1', CI: 'true', ...options.env },
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
        resolve({ code, stdout, stderr })
      },
    )
  })
}

/** Runs the command and parses its standard output as JSON; a failure names what went wrong. */
export async function runCliJson<T>(
  args: string[],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<T> {
  const result = await runCli(args, options)
  if (result.code !== 0) {
    throw new Error(`fileshare ${args.join(' ')} exited ${result.code}: ${result.stderr}`)
  }
  try {
    return JSON.parse(result.stdout) as T
  } catch {
    throw new Error(`fileshare ${args.join(' ')} printed no JSON: ${result.stdout}`)
  }
}
