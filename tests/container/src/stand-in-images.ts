/**
 * Stand-ins for the official postgres and nginx images, which compose.cluster.yaml names but no
 * registry here serves: built from the Containerfiles under stand-ins/ on the suite's base image
 * and kept in podman's store under a tag that hashes the base and those files, so a machine
 * builds each once.
 */
import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { podman, podmanStatus, removeOtherTags } from './podman.js'

const STAND_INS = fileURLToPath(new URL('../stand-ins', import.meta.url))

export type StandIn = 'postgres' | 'nginx'

/** The tag of a stand-in; it changes with the base image and every file of its folder. */
async function standInTag(name: StandIn, base: string): Promise<string> {
  const dir = join(STAND_INS, name)
  const hash = createHash('sha256').update(`${base}\n`)
  for (const file of (await readdir(dir)).sort()) {
    hash.update(`${file}\n`).update(await readFile(join(dir, file)))
  }
  return `localhost/fileshare-test-${name}:${hash.digest('hex').slice(0, 16)}`
}

/** The stand-in's image name, built first if this machine does not have it yet. */
export async function standInImage(
  name: StandIn,
  base: string,
  log: (line: string) => void,
): Promise<string> {
  const tag = await standInTag(name, base)
  if ((await podmanStatus(['image', 'exists', tag])) === 0) return tag
  log(`building ${tag}`)
  const dir = join(STAND_INS, name)
  await podman(
    [
      'build',
      '--build-arg',
      `BASE=${base}`,
      '--file',
      join(dir, 'Containerfile'),
      '--tag',
      tag,
      dir,
    ],
    { timeoutMs: 900_000 },
  )
  await removeOtherTags(tag)
  return tag
}
