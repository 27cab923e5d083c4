/**
 * The server's tests run twice where the database matters: on SQLite (every test but those named
 * `*.pg.test.ts`) and on PostgreSQL (those named `*.dialects.test.ts` or `*.pg.test.ts`, with
 * TEST_DATABASE=postgres, test/dialects.ts). `--mode quick` runs the SQLite project alone and
 * leaves out the files that need radosgw or run long (docs/testing.md).
 */
import { existsSync } from 'node:fs'

import { QUICK_MODE, testWorkers, tierExclude } from '@fileshare/testing/tiers'
import { defineConfig } from 'vitest/config'

const postgresInstalled = existsSync('/usr/lib/postgresql/15/bin/postgres')
// Under CI=true the run installs it (test/postgres-cluster.ts); elsewhere it is skipped.
if (!postgresInstalled && process.env.CI !== 'true') {
  console.warn('PostgreSQL 15 is not installed: the server suites run on SQLite only')
}

export default defineConfig(({ mode }) => ({
  test: {
    maxWorkers: testWorkers(),
    // A bound for a test that hangs, far above what any takes on a loaded machine: the tests
    // wait for states, never for a time.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          // These need PostgreSQL itself: several instances on one database.
          exclude: ['test/**/*.pg.test.ts', ...tierExclude(mode)],
        },
      },
      ...((postgresInstalled || process.env.CI === 'true') && mode !== QUICK_MODE
        ? [
            {
              extends: true,
              test: {
                name: 'postgres',
                include: ['test/**/*.dialects.test.ts', 'test/**/*.pg.test.ts'],
                env: { TEST_DATABASE: 'postgres' },
                globalSetup: ['test/postgres-cluster.ts'],
                setupFiles: ['test/postgres-setup.ts'],
              },
            },
          ]
        : []),
    ],
  },
}))
