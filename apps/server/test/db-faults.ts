/**
 * Faults injected into a real database for the tests of crash consistency: a trigger makes a
 * statement fail at the step a dying process or a full disk would, on SQLite and PostgreSQL.
 */
import type { Db } from '../src/db/client.js'
import { querySql } from './dialects.js'

/**
 * Makes every `event` on `table` whose row passes `when` fail, as a process dying at that step
 * would; `name` names the trigger.
 */
export async function crashAt(
  db: Db,
  name: string,
  event: 'INSERT' | 'UPDATE' | 'DELETE',
  table: string,
  when: string,
): Promise<void> {
  if (db.dialect === 'sqlite') {
    await querySql(
      db,
      `CREATE TRIGGER ${name} BEFORE ${event} ON ${table}
       WHEN ${when} BEGIN SELECT RAISE(ABORT, '${name}'); END`,
    )
    return
  }
  await querySql(
    db,
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql
     AS $$ BEGIN RAISE EXCEPTION '${name}'; END $$`,
  )
  await querySql(
    db,
    `CREATE TRIGGER ${name} BEFORE ${event} ON ${table} FOR EACH ROW
     WHEN (${when}) EXECUTE FUNCTION ${name}()`,
  )
}

/** Drops the trigger `crashAt` made. */
export async function recoverFrom(db: Db, name: string, table: string): Promise<void> {
  await querySql(
    db,
    db.dialect === 'sqlite' ? `DROP TRIGGER ${name}` : `DROP TRIGGER ${name} ON ${table}`,
  )
}
