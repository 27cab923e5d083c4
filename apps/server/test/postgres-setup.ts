/**
 * Setup of the `postgres` vitest project: after a test file's tests, drops the databases it made
 * in the run's cluster (test/postgres-cluster.ts), so that the cluster does not grow with the run.
 */
import { afterAll } from 'vitest'

import { dropTestDatabases } from './dialects.js'

// Bounded by the configuration's hookTimeout: dropping waits for checkpoints, slow under load.
afterAll(dropTestDatabases)
