/**
 * `fileshare login` signs in through the server's OIDC login in the browser and keeps the session
 * token for creation calls, or with `--token` keeps a personal API token made on the server's
 * settings page; `logout` forgets it; `whoami` shows who the token belongs to.
 */
import { CLI_CALLBACK_PARAM, isApiToken } from '@fileshare/protocol'
import { Command } from 'commander'

import { createApi, serverConfig } from '../lib/api.js'
import type { Context } from '../lib/context.js'
import { TOKEN_ENV } from '../lib/credentials.js'
import { CliError, EXIT } from '../lib/errors.js'
import { startLoginListener } from '../lib/login-listener.js'
import { addJsonOption, addServerOption, examples } from '../lib/options.js'
import { resolveServer } from '../lib/server.js'
import { readStdin } from '../lib/stdin.js'

/** How long the listener waits for the browser; the server's PKCE cookie lives five minutes. */
const LOGIN_TIMEOUT_MS = 5 * 60_000

interface ServerOptions {
  server?: string
  json?: boolean
}

interface LoginOptions extends ServerOptions {
  /** A personal API token, or `-` to read it from standard input. */
  token?: string
}

/** More than any token; standard input is read no further. */
const TOKEN_INPUT_MAX_BYTES = 1024

/** Whether to leave the browser alone and only print the address. */
function browserDisabled(env: NodeJS.ProcessEnv): boolean {
  return env.FILESHARE_NO_BROWSER === '1' || env.BROWSER === 'none'
}

async function openBrowser(url: string): Promise<void> {
  try {
    const { default: open } = await import('open')
    const child = await open(url)
    // A missing opener (no desktop) is not a failure: the address is printed already.
    child.on('error', () => undefined)
    child.unref()
  } catch {
    // Same as above.
  }
}

export async function runLogin(options: LoginOptions, ctx: Context): Promise<void> {
  const output = ctx.output(options.json)
  const { baseUrl } = await resolveServer(options.server, ctx.env)
  const config = await serverConfig(createApi(baseUrl))
  if (!config.loginEnabled) {
    throw new CliError(`${baseUrl} has no login; creating needs none there`, EXIT.REFUSED)
  }
  if (options.token !== undefined) return keepApiToken(baseUrl, options.token, options, ctx)
  const listener = await startLoginListener(ctx.signal)
  let token: string
  try {
    const url = `${baseUrl}/auth/login?${CLI_CALLBACK_PARAM}=${encodeURIComponent(listener.callbackUrl)}`
    const disabled = browserDisabled(ctx.env)
    // Printed also with --json, on stderr: without a browser this is the only way in.
    output.warn(
      disabled
        ? `Open this address in a browser to sign in:\n  ${url}`
        : `Opening the browser to sign in. If it does not open, visit:\n  ${url}`,
    )
    if (!disabled) await openBrowser(url)
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new CliError(
              'No login arrived within 5 minutes; run `fileshare login` again',
              EXIT.USAGE,
            ),
          ),
        LOGIN_TIMEOUT_MS,
      )
    })
    try {
      token = await Promise.race([listener.token, timeout])
    } finally {
      clearTimeout(timer)
    }
  } finally {
    await listener.close()
  }
  const session = await createApi(baseUrl, { bearerToken: token }).session()
  if (session === null)
    throw new CliError('The server did not accept the login; try again', EXIT.REFUSED)
  await ctx.credentials.save(baseUrl, token)
  if (output.json) output.result({ server: baseUrl, signedIn: true, ...session })
  else
    output.print(
      `Signed in to ${baseUrl} as ${session.name || session.sub}${session.email ? ` <${session.email}>` : ''}.`,
    )
}

/** `login --token`: checks the API token with the server, then keeps it as the login does. */
async function keepApiToken(
  baseUrl: string,
  given: string,
  options: LoginOptions,
  ctx: Context,
): Promise<void> {
  const output = ctx.output(options.json)
  const token = (
    given === '-' ? await readStdin(ctx.stdin, TOKEN_INPUT_MAX_BYTES, 'The token') : given
  ).trim()
  if (!isApiToken(token)) {
    throw new CliError('That is not an API token: they begin with fst_', EXIT.USAGE)
  }
  const owner = await createApi(baseUrl, { bearerToken: token }).session()
  if (owner === null) {
    throw new CliError(
      'The server does not accept this token: unknown, revoked or expired',
      EXIT.REFUSED,
    )
  }
  await ctx.credentials.save(baseUrl, token)
  if (output.json)
    output.result({ server: baseUrl, signedIn: true, apiToken: true, sub: owner.sub })
  else output.print(`Signed in to ${baseUrl} with an API token of ${owner.sub}.`)
}

export async function runLogout(options: ServerOptions, ctx: Context): Promise<void> {
  const output = ctx.output(options.json)
  const { baseUrl } = await resolveServer(options.server, ctx.env)
  const removed = await ctx.credentials.remove(baseUrl)
  if (ctx.env[TOKEN_ENV]?.trim()) {
    output.warn(`${TOKEN_ENV} is set: its token is still sent until you unset it.`)
  }
  if (output.json) output.result({ server: baseUrl, signedOut: removed })
  else output.print(removed ? `Signed out of ${baseUrl}.` : `Not signed in to ${baseUrl}.`)
}

export async function runWhoami(options: ServerOptions, ctx: Context): Promise<void> {
  const output = ctx.output(options.json)
  const { baseUrl } = await resolveServer(options.server, ctx.env)
  const stored = await ctx.credentials.tokenFor(baseUrl, ctx.env)
  const session = stored ? await createApi(baseUrl, { bearerToken: stored }).session() : null
  if (output.json) {
    output.result(
      session
        ? { server: baseUrl, signedIn: true, ...session }
        : { server: baseUrl, signedIn: false },
    )
    return
  }
  if (session) {
    output.print(
      `${session.name || session.sub}${session.email ? ` <${session.email}>` : ''} on ${baseUrl}`,
    )
  } else if (stored && isApiToken(stored)) {
    output.print(`The API token for ${baseUrl} is revoked or expired; make a new one.`)
  } else if (stored) {
    output.print(`The session for ${baseUrl} has expired; run \`fileshare login\`.`)
  } else {
    output.print(`Not signed in to ${baseUrl}.`)
  }
}

export function loginCommands(ctx: Context): Command[] {
  const login = new Command('login')
    .summary('sign in with the browser, for servers where creating needs a login')
    .description(
      "Opens the server's login page in the browser; once you have signed in, the browser is sent " +
        'back to a one-time listener on 127.0.0.1 with a session token, which is kept (readable only ' +
        'by you) and sent with every upload, note and request to that server. Without a browser, ' +
        '(or with FILESHARE_NO_BROWSER=1) the address to open is printed. With --token, keeps ' +
        "a personal API token made on the server's settings page instead (checked with the " +
        'server first); FILESHARE_TOKEN in the environment takes the place of a kept login.',
    )
    .option('--token <token>', 'keep this API token (fst_…), or read it from standard input with -')
  addServerOption(login)
  addJsonOption(login)
  login
    .addHelpText(
      'after',
      examples(
        'fileshare login --server https://share.example.org',
        'fileshare login --token - < ~/.fileshare-token',
      ),
    )
    .action((options: LoginOptions) => runLogin(options, ctx))

  const logout = new Command('logout').summary("forget this machine's session token for the server")
  addServerOption(logout)
  addJsonOption(logout)
  logout
    .addHelpText('after', examples('fileshare logout --server https://share.example.org'))
    .action((options: ServerOptions) => runLogout(options, ctx))

  const whoami = new Command('whoami').summary('show who is signed in to the server')
  addServerOption(whoami)
  addJsonOption(whoami)
  whoami
    .addHelpText('after', examples('fileshare whoami', 'fileshare whoami --json'))
    .action((options: ServerOptions) => runWhoami(options, ctx))

  return [login, logout, whoami]
}
