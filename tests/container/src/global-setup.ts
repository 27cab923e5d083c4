/**
 * Names the fileshare image of this run, which the first suite that needs it builds and the
 * others reuse, and removes it when the run ends; holds the network-quiet lock
 * (@fileshare/testing) throughout.
 */
import { randomUUID } from 'node:crypto'

import { holdNetworkQuiet } from '@fileshare/testing'
import type { TestProject } from 'vitest/node'

import { podman } from './podman.js'

declare module 'vitest' {
  export interface ProvidedContext {
    serviceImage: string
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Every container adds network interfaces, which fail a browser's requests in flight: the
  // browser suite, when it runs beside this one, finishes first.
  const release = await holdNetworkQuiet('the container suite')
  const image = `localhost/fileshare-test:${randomUUID().slice(0, 8)}`
  project.provide('serviceImage', image)
  return async () => {
    await podman(['rmi', '--force', image]).catch(() => undefined)
    await release()
  }
}
