/**
 * The V8 flags the server wants: those it sets on itself at start on every machine, and those for
 * a small machine with the line it prints at start about them. Uploads make V8 collect garbage
 * often, and on one or two cores its helper threads take the CPU the upload needs, so there each
 * collection runs on the server's thread; more cores keep the parallel collector. Node takes those
 * only on its command line (`print-node-flags.js`).
 * May touch: the machine's core count (read only); V8's flags (`setRuntimeFlags`).
 */
import { availableParallelism } from 'node:os'
import { setFlagsFromString } from 'node:v8'

/**
 * Set by the server on itself before it starts. Allocation-site pretenuring sends the objects of a
 * literal straight to the old generation once most of them outlived a young collection; while a
 * long chunked upload runs, the per-request objects of Node's HTTP stack (header and listener
 * arrays) outlive many, and from then on every request's objects of those kinds are freed only
 * by full collections, which costs short requests their rate and latency (docs/benchmarks.md).
 * The server keeps few objects longer than a request, so it loses nothing without it.
 */
export const RUNTIME_FLAGS: readonly string[] = ['--no-allocation-site-pretenuring']

export function setRuntimeFlags(): void {
  for (const flag of RUNTIME_FLAGS) setFlagsFromString(flag)
}

export const SMALL_MACHINE_FLAGS: readonly string[] = [
  '--single-threaded-gc',
  '--no-incremental-marking',
]

/** The flags the server wants with `cores` available to it: none above two cores. */
export function wantedNodeFlags(cores = availableParallelism()): readonly string[] {
  return cores <= 2 ? SMALL_MACHINE_FLAGS : []
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
