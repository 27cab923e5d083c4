/**
 * The browser end-to-end suite (e2e/*.e2e.ts): Node environment driving Chromium against the real
 * server. One Chromium serves the whole run (e2e/chromium-server.ts); files run one after another
 * in a single fork, since each starts a server and the machine has two cores.
 */
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['e2e/**/*.e2e.ts'],
    environment: 'node',
    globalSetup: ['e2e/chromium-server.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
  },
})
