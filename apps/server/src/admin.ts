#!/usr/bin/env node
/**
 * Entry point of `fileshare-admin` (`node apps/server/dist/admin.js …`): see admin/program.ts.
 * May touch: process state (argv, env, stdout, stderr, exit code).
 */
import { runAdmin } from './admin/program.js'

const exitCode = await runAdmin(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
})
// An S3 client's sockets would keep the process alive; the answer is written by now.
process.stdout.write('', () => process.exit(exitCode))
