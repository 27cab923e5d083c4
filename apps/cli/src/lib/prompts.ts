/**
 * Questions asked on the terminal, on stderr so that stdout stays the result. Without a terminal
 * nothing is asked: the command fails with the option that would have answered.
 */
import { UsageError } from './errors.js'

export const PASSWORD_ENV = 'FILESHARE_PASSWORD'

export interface Prompter {
  readonly interactive: boolean
  /** Asks without echo; `confirm` asks a second time and compares. */
  password(message: string, o: { hint: string; confirm?: boolean }): Promise<string>
  text(message: string, o: { hint: string }): Promise<string>
}

export interface PromptStreams {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean }
  stderr: NodeJS.WritableStream & { isTTY?: boolean }
}

export function createPrompter(
  streams: PromptStreams = { stdin: process.stdin, stderr: process.stderr },
  signal?: AbortSignal,
): Prompter {
  const interactive = streams.stdin.isTTY === true && streams.stderr.isTTY === true
  const context = { input: streams.stdin, output: streams.stderr, ...(signal ? { signal } : {}) }
  const needTerminal = (what: string, hint: string) => {
    if (!interactive)
      throw new UsageError(`${what} is needed and there is no terminal to ask: ${hint}`)
  }
  return {
    interactive,
    async password(message, { hint, confirm = false }) {
      needTerminal('A password', hint)
      // Loaded only when a question is asked: it is a large part of start-up time.
      const { password: passwordPrompt } = await import('@inquirer/prompts')
      const ask = (text: string) =>
        passwordPrompt(
          { message: text, validate: (v) => v.length > 0 || 'The password cannot be empty' },
          context,
        )
      const first = await ask(message)
      if (confirm && (await ask('Repeat the password')) !== first) {
        throw new UsageError('The two passwords differ')
      }
      return first
    },
    async text(message, { hint }) {
      needTerminal('An answer', hint)
      const { input } = await import('@inquirer/prompts')
      return input({ message }, context)
    },
  }
}

/**
 * The password of `--password [value]`: the value when one was given, else `FILESHARE_PASSWORD`,
 * else asked. Undefined when the option is absent.
 */
export async function passwordFromOption(
  option: string | boolean | undefined,
  prompter: Prompter,
  o: { creating: boolean; env?: NodeJS.ProcessEnv },
): Promise<string | undefined> {
  if (option === undefined || option === false) return undefined
  if (typeof option === 'string') {
    if (option.length === 0) throw new UsageError('--password cannot be empty')
    return option
  }
  const fromEnv = (o.env ?? process.env)[PASSWORD_ENV]
  if (fromEnv) return fromEnv
  return prompter.password(o.creating ? 'Choose a password' : 'Password', {
    hint: `give --password=<password> or set ${PASSWORD_ENV}`,
    confirm: o.creating,
  })
}

/**
 * The password a protected link needs: the value of `--password=<value>` when one was given,
 * else `FILESHARE_PASSWORD`, else asked as `label`.
 */
export async function passwordForLink(
  option: string | boolean | undefined,
  prompter: Prompter,
  env: NodeJS.ProcessEnv,
  label = 'Password',
): Promise<string> {
  if (typeof option === 'string') return option
  return (
    env[PASSWORD_ENV] ||
    prompter.password(label, { hint: `give --password=<password> or set ${PASSWORD_ENV}` })
  )
}
