/**
 * Stands in for `node:module` in the single executable, whose script can require Node's built-in
 * modules only: the two packages the command loads through `createRequire` (its manifest, for
 * `--version`, and the progress bar) are bundled here instead and answered by name.
 */
import cliProgress from 'cli-progress'

import manifest from '../package.json' with { type: 'json' }

const BUNDLED: Record<string, unknown> = {
  'cli-progress': cliProgress,
  '../package.json': manifest,
}

export function createRequire(): (id: string) => unknown {
  return (id) => {
    if (!(id in BUNDLED)) throw new Error(`${id} is not bundled into the single executable`)
    return BUNDLED[id]
  }
}
