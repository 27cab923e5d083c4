/**
 * The server's version string, read from its package.json so the two never disagree.
 * May touch: the file system (the server's package.json, read once).
 */
import { createRequire } from 'node:module'

// Both src/ and dist/ sit one level below the package root.
const manifest = createRequire(import.meta.url)('../package.json') as { version: string }

export const readPackageVersion = (): string => manifest.version
