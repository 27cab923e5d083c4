import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The end-to-end suites run the built command; this builds it first so it is never stale.
    globalSetup: ['test/build-cli.ts'],
    // The suites spend much of their time waiting on child processes and the server, so two run
    // side by side even on two cores.
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
})
