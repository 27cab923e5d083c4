/**
 * Global setup of the `postgres` vitest project: one PostgreSQL cluster for the whole run, with a
 * template database that has every migration applied. The test files get its address (`inject`)
 * and copy a database from the template for each server (test/dialects.ts), so no file pays for
 * `initdb` and no server replays the migrations. Under CI=true a missing PostgreSQL is installed
 * here; the project is only run with it.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { postgresMissing, startPostgres, type PostgresAddress } from '@fileshare/testing/postgres'
import type { TestProject } from 'vitest/node'

import { openDatabase } from '../src/db/client.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's cluster and the address of its migrated template database. */
    postgres: PostgresAddress & { template: string }
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
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
    project.provide('postgres', { port: cluster.port, socketDir: cluster.socketDir, template })
  } catch (error) {
    await cluster.stop()
    throw error
  }
  return () => cluster.stop()
}
