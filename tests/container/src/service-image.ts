/** Builds the repository's Dockerfile on a base image and measures the result. */
import { fileURLToPath } from 'node:url'

import { podman, podmanStatus } from './podman.js'

export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url))

/** Builds the image `tag` from the repository's Dockerfile with `BASE=base`. */
export async function buildServiceImage(base: string, tag: string): Promise<void> {
  await podman(['build', '--build-arg', `BASE=${base}`, '--tag', tag, REPO_ROOT], {
    timeoutMs: 900_000,
  })
}

/**
 * Builds the image `tag` unless this run has built it already (the run's suites share one);
 * answers whether it built it.
 */
export async function ensureServiceImage(base: string, tag: string): Promise<boolean> {
  if ((await podmanStatus(['image', 'exists', tag])) === 0) return false
  await buildServiceImage(base, tag)
  return true
}

/** The size of an image in podman's store, bytes (uncompressed, all layers). */
export async function imageSize(image: string): Promise<number> {
  const { stdout } = await podman(['image', 'inspect', '--format', '{{.Size}}', image])
  return Number(stdout.trim())
}

export const megabytes = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`
