/**
 * The command's unit tests (src/) and its end-to-end suites (test/), which run the built command.
 * `--mode quick` runs the unit tests alone: each step of the end-to-end suites starts a process
 * (docs/testing.md).
 */
import { QUICK_MODE } from '@fileshare/testing/tiers'
import { defineConfig } from 'vitest/config'

export default defineConfig(({ mode }) => ({
  test: {
    // The suites spend much of their time waiting on child processes and the server, so two run
    // side by side even on two cores.
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'] } },
      ...(mode === QUICK_MODE
        ? []
        : [
            {
              extends: true as const,
              test: {
                name: 'command',
                include: ['test/**/*.test.ts'],
                // The suites run the built command; this builds it first so it is never stale.
                globalSetup: ['test/build-cli.ts'],
              },
            },
          ]),
    ],
  },
}))
