/**
 * What every command runs with: its streams, environment, the cancel signal of Ctrl-C, and the
 * stores of the config folder. Tests and the entry point build it; commands never read globals.
 */
import { configDir } from './config-dir.js'
import { Credentials } from './credentials.js'
import { History } from './history.js'
import { createOutput, type Output } from './output.js'
import { createPrompter, type Prompter } from './prompts.js'

export interface Context {
  env: NodeJS.ProcessEnv
  stdin: NodeJS.ReadableStream & { isTTY?: boolean }
  stdout: NodeJS.WritableStream & { isTTY?: boolean }
  stderr: NodeJS.WritableStream & { isTTY?: boolean }
  /** Aborted by Ctrl-C: uploads are cancelled and partial files removed. */
  signal: AbortSignal
  credentials: Credentials
  history: History
  prompter: Prompter
  /** `quiet`: no progress and no status lines (`--quiet`). */
  output(json: boolean | undefined, quiet?: boolean): Output
}

export function createContext(signal: AbortSignal, env: NodeJS.ProcessEnv = process.env): Context {
  const dir = configDir(env)
  const streams = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }
  return {
    env,
    ...streams,
    signal,
    credentials: new Credentials(dir),
    history: new History(dir),
    prompter: createPrompter(streams, signal),
    output: (json, quiet) => createOutput(json === true, streams, env, { quiet }),
  }
}
