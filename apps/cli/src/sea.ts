/**
 * Entry point of the single executable (scripts/build-sea.ts): a CommonJS script, which cannot
 * wait at its top level as the ES module entry does.
 */
import { runCommand } from './run-command.js'

void runCommand()
