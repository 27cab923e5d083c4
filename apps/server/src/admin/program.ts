/**
 * The fileshare-admin command line: registers the subcommands, each of which opens the server's
 * database and storage (context.ts), does one thing and prints one answer, as text or as JSON
 * (`--json`); failures are one line on stderr and an exit code (admin-error.ts).
 * May touch: the stdout and stderr it is given; the rest through context.ts and the commands.
 */
import { Command, CommanderError } from 'commander'

import { ConfigError, loadConfig } from '../config.js'
import { StartupFailure } from '../startup-failure.js'
import { readPackageVersion } from '../package-version.js'
import { AdminError, ADMIN_EXIT } from './admin-error.js'
import { lsCommand } from './commands/ls.js'
import { purgeExpiredCommand } from './commands/purge-expired.js'
import { closeReportCommand, listReportsCommand, showReportCommand } from './commands/reports.js'
import { rmCommand } from './commands/rm.js'
import { statsCommand } from './commands/stats.js'
import { tokensCommand } from './commands/tokens.js'
import { openAdminContext, type AdminContext } from './context.js'
import type { CommandOutput } from './output.js'

export interface AdminIo {
  env: NodeJS.ProcessEnv
  stdout: { write(text: string): unknown }
  stderr: { write(text: string): unknown }
}

/** Runs one command line (without node and the script); resolves with the exit code. */
export async function runAdmin(args: string[], io: AdminIo): Promise<number> {
  let exitCode = 0
  const program = new Command('fileshare-admin')
    .description('Operate a fileshare instance: inspect, take down, handle abuse reports')
    .version(readPackageVersion())
    .option('--json', 'print one JSON document on stdout')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })

  const run =
    <A extends unknown[]>(work: (ctx: AdminContext, ...args: A) => Promise<CommandOutput>) =>
    async (...args: A) => {
      const ctx = await openAdminContext(loadConfig(io.env))
      try {
        const output = await work(ctx, ...args)
        const json = program.opts<{ json?: boolean }>().json === true
        io.stdout.write(json ? `${JSON.stringify(output.json)}\n` : `${output.text}\n`)
        exitCode = output.exitCode ?? 0
      } finally {
        await ctx.close()
      }
    }

  program
    .command('stats')
    .description('counts, bytes and oldest items, and the storage used')
    .action(run((ctx) => statsCommand(ctx)))
  program
    .command('ls')
    .description('uploads, notes and requests with sizes, times and counters (never a secret)')
    .option('--kind <kind>', 'only upload, note, request or removed')
    .option('--limit <n>', 'at most this many of each kind, newest first', positive, 1000)
    .action(run((ctx, options: { kind?: string; limit: number }) => lsCommand(ctx, options)))
  program
    .command('rm <id>')
    .description('take an upload, a note or a request down with its files; it answers 410')
    .option('--reason <text>', 'shown with the 410 to whoever opens the link')
    .action(run((ctx, id: string, options: { reason?: string }) => rmCommand(ctx, id, options)))
  program
    .command('purge-expired')
    .description('remove now what the cleanup job would remove')
    .action(run((ctx) => purgeExpiredCommand(ctx)))

  const reports = program.command('reports').description('abuse reports')
  reports
    .command('list', { isDefault: true })
    .description('list reports, newest first')
    .option('--status <status>', 'open, resolved, dismissed or all', 'open')
    .action(run((ctx, options: { status: string }) => listReportsCommand(ctx, options)))
  reports
    .command('show <n>')
    .description('one report, with the link to open the content when its key was given')
    .action(run((ctx, n: string) => showReportCommand(ctx, n)))
  reports
    .command('resolve <n>')
    .description('mark a report handled')
    .action(run((ctx, n: string) => closeReportCommand(ctx, n, 'resolved')))
  reports
    .command('dismiss <n>')
    .description('mark a report unfounded')
    .action(run((ctx, n: string) => closeReportCommand(ctx, n, 'dismissed')))
  const tokens = program.command('tokens').description('personal API tokens of signed-in users')
  tokens
    .command('list', { isDefault: true })
    .description('every token with its owner, scopes, creation, last use and expiry')
    .action(run((ctx) => tokensCommand(ctx.services, { action: 'list' })))
  tokens
    .command('revoke <id>')
    .description('revoke a token at once, on every instance')
    .action(run((ctx, id: string) => tokensCommand(ctx.services, { action: 'revoke', id })))

  try {
    await program.parseAsync(args, { from: 'user' })
    return exitCode
  } catch (error) {
    return describeFailure(error, io)
  }
}

function positive(text: string): number {
  if (!/^[1-9][0-9]{0,6}$/.test(text)) throw new AdminError(`not a positive number: ${text}`)
  return Number(text)
}

/** One line on stderr and the exit code of a failure. */
function describeFailure(error: unknown, io: AdminIo): number {
  // Commander printed its own message (usage, --help, --version).
  if (error instanceof CommanderError) return error.exitCode
  // A refusal, a setting, or a database driver that cannot be had: one line, as the server says it.
  const oneLine =
    error instanceof AdminError || error instanceof ConfigError || error instanceof StartupFailure
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error)
  io.stderr.write(`fileshare-admin: ${oneLine ? error.message : message}\n`)
  if (error instanceof AdminError) return error.exitCode
  return error instanceof ConfigError ? ADMIN_EXIT.usage : ADMIN_EXIT.failure
}
