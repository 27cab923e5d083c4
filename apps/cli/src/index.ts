#!/usr/bin/env node
/** Entry point of the `fileshare` command: registers the commands and runs the one asked for. */
import { Command } from 'commander'

import { readPackageVersion } from './package-version.js'

const program = new Command('fileshare')
  .description('Share files, notes and file requests end-to-end encrypted with a fileshare server')
  .version(readPackageVersion(), '-V, --version', 'print the version')
  .helpOption('-h, --help', 'show help for a command')

await program.parseAsync(process.argv)
