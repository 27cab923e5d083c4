/**
 * What `pnpm test` runs after the build, as lanes of steps that scripts/test-lanes.mjs runs side
 * by side, the steps of one lane one after another. The main lane runs the packages' test suites;
 * the side lane holds what does not need their results: the type checks and lints, the container
 * suite (mostly waiting on podman and the network), the suites on the other Node LTS lines, the
 * chaos run over the cluster, the formatting, the source layout and the commit messages. Neither
 * lane builds: the build comes before both, and turbo runs the test tasks `--only`, so it restores
 * no build output under a running suite. Only that script reads this module.
 */
import { availableParallelism } from 'node:os'

export interface TestStep {
  /** How the run's log names the step. */
  name: string
  command: string
  args: string[]
}

const CONTAINER = '@fileshare/container-tests'
/** The chaos run of every test run: a minute of faults from a fixed seed, so a failure replays. */
export const CHAOS_ARGS = ['--seconds', '60', '--seed', '8', '--max-mib', '100']

/** `script` of every package, one package at a time, each whatever the others answered. */
const everyPackage = (script: string): TestStep => ({
  name: script,
  command: 'pnpm',
  args: ['--recursive', '--workspace-concurrency=1', '--no-bail', 'run', script],
})

export const MAIN_LANE: readonly TestStep[] = [
  {
    name: 'package tests',
    command: 'turbo',
    args: ['run', 'test', '--only', `--filter=!${CONTAINER}`, '--concurrency=1', '--continue'],
  },
]

export const SIDE_LANE: readonly TestStep[] = [
  everyPackage('typecheck'),
  everyPackage('lint'),
  { name: 'container test', command: 'pnpm', args: ['--filter', CONTAINER, 'run', 'test'] },
  { name: 'Node LTS lines', command: 'node', args: ['scripts/test-node-lts.mjs'] },
  {
    name: 'chaos run',
    command: 'pnpm',
    args: ['--filter', '@fileshare/server', 'run', 'chaos', ...CHAOS_ARGS],
  },
  { name: 'formatting', command: 'prettier', args: ['--check', '.'] },
  { name: 'source layout', command: 'pnpm', args: ['check:layout'] },
  { name: 'commit messages', command: 'node', args: ['scripts/check-commits.mjs'] },
]

/**
 * The lanes for a machine with `cores`: two side by side from two cores on, where the side lane's
 * waiting fills the time the main lane leaves; on one core one lane, the side lane's steps after
 * the main lane's, as two would only take turns on it.
 */
export function testLanes(cores = availableParallelism()): TestStep[][] {
  return cores >= 2 ? [[...MAIN_LANE], [...SIDE_LANE]] : [[...MAIN_LANE, ...SIDE_LANE]]
}
