/**
 * What `pnpm test` runs after the build, as lanes of steps that scripts/test-lanes.mjs runs side
 * by side, the steps of one lane one after another. The main lane type-checks, lints and tests
 * the packages; the side lane holds what does not need the main lane's results: the container
 * suite (mostly waiting on podman and the network), the suites on the other Node LTS lines, the
 * formatting and the commit messages. Only that script reads this module.
 */
import { availableParallelism } from 'node:os'

export interface TestStep {
  /** How the run's log names the step. */
  name: string
  command: string
  args: string[]
}

const CONTAINER = '@fileshare/container-tests'
const container = (script: string): TestStep => ({
  name: `container ${script}`,
  command: 'pnpm',
  args: ['--filter', CONTAINER, 'run', script],
})

export const MAIN_LANE: readonly TestStep[] = [
  {
    name: 'packages',
    command: 'turbo',
    args: [
      'run',
      'typecheck',
      'lint',
      'test',
      `--filter=!${CONTAINER}`,
      '--concurrency=1',
      '--continue',
    ],
  },
]

export const SIDE_LANE: readonly TestStep[] = [
  container('typecheck'),
  container('lint'),
  container('test'),
  { name: 'Node LTS lines', command: 'node', args: ['scripts/test-node-lts.mjs'] },
  { name: 'formatting', command: 'prettier', args: ['--check', '.'] },
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
