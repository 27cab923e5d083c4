#!/usr/bin/env node
/** Entry point of the `fileshare` command. */
import { runCommand } from './run-command.js'

await runCommand()
