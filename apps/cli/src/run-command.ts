/**
 * Runs the command line of this process to its end and exits with its code: what the `fileshare`
 * entry does, shared by the npm package's entry (index.ts) and the single executable's (sea.ts).
 */
import { main } from './main.js'

export async function runCommand(): Promise<never> {
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
}
