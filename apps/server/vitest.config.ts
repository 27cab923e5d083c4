/**
 * The server's tests run twice where the database matters: on SQLite (every test) and on
 * PostgreSQL (the integration suites below, TEST_DATABASE=postgres, test/dialects.ts).
 */
import { existsSync } from 'node:fs'

import { defineConfig } from 'vitest/config'

/** Integration suites whose servers run on PostgreSQL as well. */
const POSTGRES_SUITES = [
  'admin',
  'api-tokens',
  'auth',
  'chunk-admission',
  'cleanup',
  'client-api',
  'client-files',
  'client-notes',
  'client-requests',
  'cluster-chunks',
  'http',
  'json-content-type',
  'limits',
  'lockout',
  'metrics',
  'notes',
  'notification-outbox',
  'notifications',
  'password-oracle',
  'postgres',
  'reports',
  'request-flow',
  'request-note-slots',
  'request-upload-ws',
  'requests',
  'resume',
  'resume.s3',
  'salts',
  'shared-limits',
  'stored-sessions',
  'stored-sessions.s3',
  'takedown',
  'upload-ws',
  'upload-status',
  'uploads',
].map((name) => `test/${name}.test.ts`)

const postgresInstalled = existsSync('/usr/lib/postgresql/15/bin/postgres')
// Under CI=true the suites install it (@fileshare/testing/postgres); elsewhere they are skipped.
if (!postgresInstalled && process.env.CI !== 'true') {
  console.warn('PostgreSQL 15 is not installed: the server suites run on SQLite only')
}

export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          // These need PostgreSQL itself: several instances on one database.
          exclude: [
            'test/postgres.test.ts',
            'test/shared-limits.test.ts',
            'test/cluster-chunks.test.ts',
            'test/stored-sessions.test.ts',
            'test/stored-sessions.s3.test.ts',
          ],
        },
      },
      ...(postgresInstalled || process.env.CI === 'true'
        ? [
            {
              extends: true,
              test: {
                name: 'postgres',
                include: POSTGRES_SUITES,
                env: { TEST_DATABASE: 'postgres' },
                setupFiles: ['test/postgres-setup.ts'],
              },
            },
          ]
        : []),
    ],
  },
})
