/**
 * Runs one command line: builds the context, parses, and maps any failure to its exit code. Ctrl-C
 * cancels the running transfer (a second one exits at once).
 */
import { createProgram } from './program.js'
import { handleError } from './handle-error.js'
import { createContext } from './lib/context.js'
import { CliError, EXIT } from './lib/errors.js'

export async function main(argv: readonly string[] = process.argv): Promise<number> {
  const controller = new AbortController()
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(EXIT.INTERRUPTED)
    controller.abort(new CliError('Cancelled', EXIT.INTERRUPTED))
  }
  process.on('SIGINT', onSigint)
  const ctx = createContext(controller.signal)
  const json = argv.includes('--json')
  try {
    await createProgram(ctx).parseAsync(argv)
    return EXIT.OK
  } catch (error) {
    return handleError(error, json, ctx, ctx.env)
  } finally {
    process.off('SIGINT', onSigint)
  }
}
