/**
 * The V8 flags the server is best started with; `pnpm start` and the benchmarks pass them.
 *
 * An upload allocates a buffer for every socket read and every WebSocket frame, and V8 answers
 * that much external memory with a collection every few tens of milliseconds. By default those
 * collections mark and sweep on helper threads, concurrently and incrementally, which on a
 * machine of one or two cores takes the CPU the upload itself needs: measured with
 * `pnpm bench:server` on two cores, a 1 GiB WebSocket upload went from 540–660 to 1,035–1,160
 * MB/s with both flags, a 1 GiB `fileshare send` from 2.0–2.2 to 1.4–1.6 s, and the server's heap
 * is small enough (tens of MB) for one thread to collect it in a few milliseconds. Node takes
 * these flags only on its command line: not in NODE_OPTIONS, and not at run time.
 */
export const NODE_FLAGS: readonly string[] = ['--single-threaded-gc', '--no-incremental-marking']

/** The flags of NODE_FLAGS that `execArgv` (a process's Node options) lacks. */
export function missingNodeFlags(execArgv: readonly string[]): string[] {
  return NODE_FLAGS.filter((flag) => !execArgv.includes(flag))
}
