/**
 * The end-to-end run's one Chromium: vitest's global setup starts it as a browser server and
 * hands its WebSocket address to the test files (`inject('chromiumEndpoint')`), which connect
 * to it and open a fresh context per test (suite.ts). Closed when the run ends. Where Chromium
 * is missing outside CI the address is empty and the suites skip; under CI=true it fails here.
 * The run holds the network-quiet lock (@fileshare/testing) throughout.
 */
import { existsSync } from 'node:fs'

import { holdNetworkQuiet } from '@fileshare/testing'
import { chromium } from 'playwright-core'
import type { TestProject } from 'vitest/node'

import { CHROMIUM_ARGS, CHROMIUM_PATH } from './browser.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's Chromium server, '' when there is none. */
    chromiumEndpoint: string
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!existsSync(CHROMIUM_PATH) && process.env.CI !== 'true') {
    project.provide('chromiumEndpoint', '')
    return async () => {}
  }
  // No network interface may come or go while pages load: the container suite waits meanwhile.
  const release = await holdNetworkQuiet('the browser suite')
  const server = await chromium
    .launchServer({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS })
    .catch(async (error: unknown) => {
      await release()
      throw error
    })
  project.provide('chromiumEndpoint', server.wsEndpoint())
  return async () => {
    await server.close()
    await release()
  }
}
