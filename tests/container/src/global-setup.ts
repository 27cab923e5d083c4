/**
 * Names the fileshare image of this run, which the first suite that needs it builds and the
 * others reuse, and removes it when the run ends.
 */
import { randomUUID } from 'node:crypto'

import type { TestProject } from 'vitest/node'

import { podman } from './podman.js'

declare module 'vitest' {
  export interface ProvidedContext {
    serviceImage: string
  }
}

export default function setup(project: TestProject): () => Promise<void> {
  const image = `localhost/fileshare-test:${randomUUID().slice(0, 8)}`
  project.provide('serviceImage', image)
  return async () => {
    await podman(['rmi', '--force', image]).catch(() => undefined)
  }
}
