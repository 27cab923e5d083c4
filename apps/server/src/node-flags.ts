/**
 * The V8 flags the server wants on a small machine, and the line it prints at start about them.
 *
 * An upload allocates a buffer for every socket read and WebSocket frame, and V8 collects that
 * memory often. By default it marks and sweeps on helper threads; with one or two cores those
 * threads take the CPU the upload needs, so there each collection runs on the server's thread in
 * one go. With more cores the parallel collector V8 is tuned for is kept. Node takes these flags
 * only on its command line, so `pnpm start` asks `print-node-flags.js` which to pass.
 * May touch: the machine's core count (read only).
 */
import { availableParallelism } from 'node:os'

export const SMALL_MACHINE_FLAGS: readonly string[] = [
  '--single-threaded-gc',
  '--no-incremental-marking',
]

/** The most cores at which the server collects garbage on its own thread. */
export const SMALL_MACHINE_MAX_CORES = 2

/** The flags the server wants with `cores` available to it: none above two cores. */
export function wantedNodeFlags(cores = availableParallelism()): readonly string[] {
  return cores <= SMALL_MACHINE_MAX_CORES ? SMALL_MACHINE_FLAGS : []
}

/** The wanted flags that `execArgv` (a process's Node options) lacks. */
export function missingNodeFlags(
  execArgv: readonly string[],
  cores = availableParallelism(),
): string[] {
  return wantedNodeFlags(cores).filter((flag) => !execArgv.includes(flag))
}

/** The start-up line saying which garbage collection the server runs with, and why. */
export function describeNodeFlags(execArgv: readonly string[], cores = availableParallelism()) {
  const wanted = wantedNodeFlags(cores)
  const cpus = `${cores} core${cores === 1 ? '' : 's'}`
  if (wanted.length === 0) return `fileshare: ${cpus}, V8's parallel garbage collection`
  const missing = missingNodeFlags(execArgv, cores)
  if (missing.length === 0) return `fileshare: ${cpus}, garbage collection on the server's thread`
  return (
    `fileshare: ${cpus}, but Node was started without ${missing.join(' ')}; uploads cost the ` +
    'server much less CPU with them (see "Node flags" in docs/configuration.md)'
  )
}
