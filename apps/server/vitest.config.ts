/**
 * The server's tests run twice where the database matters: on SQLite (every test but those named
 * `*.pg.test.ts`) and on PostgreSQL (those named `*.dialects.test.ts` or `*.pg.test.ts`, with
 * TEST_DATABASE=postgres, test/dialects.ts). The files that need radosgw (`*.s3.*`) run in
 * projects of their own, `sqlite-s3` and `postgres-s3`, whose global setup starts the run's
 * gateway, so that no other run starts one. `--mode quick` runs the SQLite project alone and
 * leaves out the files tagged for fixtures or long runs (docs/testing.md).
 */
import { existsSync } from 'node:fs'

import { QUICK_MODE, testWorkers, tierExclude } from '@fileshare/testing/tiers'
import { defineConfig } from 'vitest/config'

const postgresInstalled = existsSync('/usr/lib/postgresql/15/bin/postgres')
// Under CI=true the run installs it (test/postgres-cluster.ts); elsewhere it is skipped.
if (!postgresInstalled && process.env.CI !== 'true') {
  console.warn('PostgreSQL 15 is not installed: the server suites run on SQLite only')
}

const SQLITE_FILES = ['src/**/*.test.ts', 'test/**/*.test.ts']
const POSTGRES_FILES = ['test/**/*.dialects.test.ts', 'test/**/*.pg.test.ts']
const S3_FILES = 'test/**/*.s3.*test.ts'
const POSTGRES_ONLY = 'test/**/*.pg.test.ts'

const sqlite = (mode: string) => [
  {
    extends: true,
    test: {
      name: 'sqlite',
      include: SQLITE_FILES,
      exclude: [POSTGRES_ONLY, S3_FILES, ...tierExclude(mode)],
    },
  },
  {
    extends: true,
    test: {
      name: 'sqlite-s3',
      include: [S3_FILES],
      exclude: [POSTGRES_ONLY],
      globalSetup: ['test/radosgw-gateway.ts'],
    },
  },
]

const postgres = () => {
  const test = {
    env: { TEST_DATABASE: 'postgres' },
    setupFiles: ['test/postgres-setup.ts'],
  }
  return [
    {
      extends: true,
      test: {
        ...test,
        name: 'postgres',
        include: POSTGRES_FILES,
        exclude: [S3_FILES],
        globalSetup: ['test/postgres-cluster.ts'],
      },
    },
    {
      extends: true,
      test: {
        ...test,
        name: 'postgres-s3',
        include: ['test/**/*.s3.*dialects.test.ts', 'test/**/*.s3.*pg.test.ts'],
        globalSetup: ['test/postgres-cluster.ts', 'test/radosgw-gateway.ts'],
      },
    },
  ]
}

export default defineConfig(({ mode }) => ({
  test: {
    maxWorkers: testWorkers(),
    // A bound for a test that hangs, far above what any takes on a loaded machine: the tests
    // wait for states, never for a time.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects:
      mode === QUICK_MODE
        ? sqlite(mode).slice(0, 1)
        : [...sqlite(mode), ...(postgresInstalled || process.env.CI === 'true' ? postgres() : [])],
  },
}))
