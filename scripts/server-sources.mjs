// The server's source files as the layout checks see them: every .ts file under apps/server/src
// but the tests next to them.
import { readdirSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
export const SERVER_SOURCE = join(ROOT, 'apps/server/src')

export function serverSourceFiles(dir = SERVER_SOURCE) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return serverSourceFiles(path)
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : []
  })
}
