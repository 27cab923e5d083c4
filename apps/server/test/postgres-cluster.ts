/**
 * Global setup of the PostgreSQL vitest projects: one cluster for the whole run, with a template
 * database that has every migration applied. The test files get its address (`inject`) and copy
 * a database from the template for each server (test/dialects.ts), so no file pays for `initdb`
 * and no server replays the migrations. Under CI=true a missing PostgreSQL is installed here; the
 * projects are only run with it.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { postgresMissing, startPostgres, type PostgresAddress } from '@fileshare/testing/postgres'
import { takeRunFixture } from '@fileshare/testing/run-fixture'
import type { TestProject } from 'vitest/node'

import { openDatabase } from '../src/db/open-database.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's cluster and the address of its migrated template database. */
    postgres: PostgresAddress & { template: string }
  }
}

async function startCluster() {
  const missing = await postgresMissing()
  if (missing) throw new Error(missing)
  const cluster = await startPostgres()
  try {
    const template = await cluster.createDatabase()
    const dataDir = await mkdtemp(join(tmpdir(), 'fileshare-template-'))
    try {
      const db = await openDatabase({ dataDir, databaseUrl: template, databasePoolSize: 1 })
      await db.close()
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
    return { cluster, template }
  } catch (error) {
    await cluster.stop()
    throw error
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { fixture, release } = await takeRunFixture('postgres', startCluster, ({ cluster }) =>
    cluster.stop(),
  )
  const { cluster, template } = fixture
  project.provide('postgres', { port: cluster.port, socketDir: cluster.socketDir, template })
  return release
}
