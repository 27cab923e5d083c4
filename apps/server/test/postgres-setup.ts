/**
 * Setup of the `postgres` vitest project: starts each test file's PostgreSQL cluster before its
 * tests (so no test's timeout pays for initdb) and stops it after them.
 */
import { afterAll, beforeAll } from 'vitest'

import { stopTestPostgres, testPostgres } from './dialects.js'

beforeAll(async () => {
  await testPostgres()
}, 60_000)
afterAll(stopTestPostgres, 30_000)
