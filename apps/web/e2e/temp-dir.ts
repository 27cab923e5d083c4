/**
 * A temporary folder for a test file's payloads (or a describe block's), made before its tests
 * and removed after them, wherever it is called.
 */
import { afterAll, beforeAll } from 'vitest'

import { tempDir, type TempDir } from './files.js'

export function useTempDir(prefix?: string): TempDir {
  let dir: TempDir | undefined
  beforeAll(async () => {
    dir = await tempDir(prefix)
  })
  afterAll(async () => {
    await dir?.remove()
  })
  const made = (): TempDir => {
    if (!dir) throw new Error('the temporary folder is made before the tests run')
    return dir
  }
  return {
    get path() {
      return made().path
    },
    join: (...parts) => made().join(...parts),
    remove: () => made().remove(),
  }
}
