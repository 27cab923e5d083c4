/**
 * Where an archive is extracted. Entries that all sit under one top-level folder go into the
 * destination as they are; any other archive gets a new folder of its own, named after it (as
 * `unar` does), so that it cannot scatter files among, or beside, what is already there. A hidden
 * name (`.ssh`, `.bashrc`) at the archive's top level is extracted only with --force: in a home
 * folder it would plant configuration that is read without anyone looking.
 */
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'

import { unsafeEntryName } from './entry-name.js'
import { UsageError } from './errors.js'

/** The first segments of `names` (`/`-separated archive paths), each once, in order. */
export function topLevelNames(names: readonly string[]): string[] {
  return [...new Set(names.map((name) => name.split('/')[0] ?? ''))]
}

/** Whether every name is inside (or is) one and the same top-level folder. */
export function isUnderOneFolder(names: readonly string[]): boolean {
  return (
    names.length > 0 && topLevelNames(names).length === 1 && names.every((n) => n.includes('/'))
  )
}

/**
 * Refuses a hidden top-level name unless `force`. Unsafe names (`..`) are left to the extraction,
 * which refuses the whole archive for them.
 */
export function checkHiddenTopLevel(names: readonly string[], force: boolean): void {
  if (force) return
  const safe = names.filter((name) => unsafeEntryName(name) === null)
  const hidden = topLevelNames(safe).find((top) => top.startsWith('.'))
  if (hidden === undefined) return
  throw new UsageError(
    `The archive holds ${JSON.stringify(hidden)} at its top level, a hidden name; ` +
      'use --force to extract it',
  )
}

/**
 * Creates a new folder in `dir` (which must exist) named `name`, else `name (2)`, `name (3)`, …:
 * the first that does not exist yet, taken atomically. Answers its path.
 */
export async function makeNewFolder(dir: string, name: string): Promise<string> {
  for (let n = 1; ; n++) {
    const path = join(dir, n === 1 ? name : `${name} (${n})`)
    try {
      await mkdir(path)
      return path
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
}
