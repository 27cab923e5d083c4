/** The `fileshare` command tree: every command with its options and help. */
import { Command, type Argument } from 'commander'

import { deleteCommand } from './commands/delete.js'
import { getCommand } from './commands/get.js'
import { inboxCommand } from './commands/inbox.js'
import { loginCommands } from './commands/login.js'
import { lsCommand } from './commands/ls.js'
import { noteCommand } from './commands/note.js'
import { requestCommand } from './commands/request.js'
import { resumeCommand, sendCommand } from './commands/send.js'
import { verifyWebCommand } from './commands/verify-web.js'
import type { Context } from './lib/context.js'
import { examples } from './lib/options.js'
import { readPackageVersion } from './package-version.js'

const FOOTER = `
Exit codes:
  0  success
  1  usage error (bad option, missing file, a file that would be overwritten)
  2  refused by the server (its message is shown), or a wrong password
  3  network failure, a server that is not fileshare, or downloaded data that
     failed authentication

Environment:
  FILESHARE_SERVER    server for commands that create (else "server" in config.json,
                      else http://localhost:3000); links name their own server
  FILESHARE_PASSWORD  password used when --password is given without a value
  FILESHARE_TOKEN     personal API token (fst_…) sent in place of the kept login
  XDG_CONFIG_HOME     config folder is $XDG_CONFIG_HOME/fileshare (else ~/.config/fileshare),
                      holding config.json, credentials.json and history.json (mode 0600)
${examples(
  'fileshare send report.pdf',
  "fileshare get 'https://share.example.org/d/…#…'",
  "echo 'the door code is 4711' | fileshare note --views 1",
  'fileshare send --help',
)}`

/** Settings every command needs; commands built with `new Command` do not inherit them. */
function applySettings(command: Command, ctx: Context): void {
  command
    .exitOverride()
    .enablePositionalOptions()
    .showHelpAfterError('(add --help for usage)')
    // Subcommands listed without "[options]": the shorter terms leave commander room to wrap
    // the descriptions (it wraps only when 40 columns remain beside the terms).
    .configureHelp({
      subcommandTerm: (sub) => [sub.name(), ...sub.registeredArguments.map(argumentTerm)].join(' '),
    })
    .configureOutput({
      writeOut: (text) => void ctx.stdout.write(text),
      writeErr: (text) => void ctx.stderr.write(text),
    })
  for (const sub of command.commands) applySettings(sub, ctx)
}

/** `<name>`, `[name]` or `<name...>` as commander writes an argument in usage lines. */
function argumentTerm(argument: Argument): string {
  const name = `${argument.name()}${argument.variadic ? '...' : ''}`
  return argument.required ? `<${name}>` : `[${name}]`
}

export function createProgram(ctx: Context): Command {
  const program = new Command('fileshare')
    .description(
      'Share files, notes and file requests end-to-end encrypted with a fileshare server',
    )
    .version(readPackageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .addCommand(sendCommand(ctx))
    .addCommand(resumeCommand(ctx))
    .addCommand(getCommand(ctx))
    .addCommand(noteCommand(ctx))
    .addCommand(requestCommand(ctx))
    .addCommand(inboxCommand(ctx))
    .addCommand(deleteCommand(ctx))
    .addCommand(lsCommand(ctx))
    .addCommand(verifyWebCommand(ctx))
  for (const command of loginCommands(ctx)) program.addCommand(command)
  program.addHelpText('after', FOOTER)
  applySettings(program, ctx)
  return program
}
