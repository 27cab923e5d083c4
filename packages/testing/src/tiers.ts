/**
 * The test tiers, told apart by tags in a test file's name (docs/testing.md): `name.pg.test.ts`
 * needs PostgreSQL, `name.s3.test.ts` radosgw, `name.proc.test.ts` runs the server as a process
 * of its own, `name.soak.test.ts` is a long run. The quick tier (`vitest run --mode quick`,
 * `pnpm test:quick`) leaves these files out, so it needs no fixture beyond SQLite and the
 * filesystem. Only vitest configurations read this module.
 */
import { availableParallelism } from 'node:os'

/** The vitest mode of the quick tier. */
export const QUICK_MODE = 'quick'

/** Files that need a fixture the quick tier does without, or that cost seconds per case. */
export const QUICK_EXCLUDE = [
  '**/*.pg.test.ts',
  '**/*.s3.*test.ts',
  '**/*.proc.*test.ts',
  '**/*.soak.*test.ts',
]

/** What a package's vitest run leaves out in `mode`: nothing in the full run. */
export function tierExclude(mode: string): string[] {
  return mode === QUICK_MODE ? QUICK_EXCLUDE : []
}

/**
 * How many test files run side by side: vitest's own choice (one fewer than the cores), but at
 * least two, since the integration suites spend most of their time waiting on sockets and child
 * processes and one file at a time leaves a two-core machine half idle.
 */
export function testWorkers(cores = availableParallelism()): number {
  return Math.max(2, cores - 1)
}
