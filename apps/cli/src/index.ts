#!/usr/bin/env node
/** Entry point of the `fileshare` command. */
import { main } from './main.js'

// A reader that stopped early (`fileshare ls | head`) is not an error of this command.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    throw error
  })
}

const code = await main()
// Idle keep-alive sockets must not hold a finished command open: flush, then exit.
await new Promise((resolve) => process.stdout.write('', resolve))
await new Promise((resolve) => process.stderr.write('', resolve))
process.exit(code)
