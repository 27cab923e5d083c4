/**
 * Debian's Chromium driven by playwright-core for the end-to-end suite and the benchmark. Every
 * test gets a fresh context (its own storage, service workers and downloads); downloads land in
 * a temporary directory that is removed with the browser. Under CI=true a missing Chromium fails
 * the suite instead of skipping it.
 */
import { existsSync } from 'node:fs'

import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
} from 'playwright-core'

import { tempDir } from './files.js'

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** The flags every Chromium of the tests and benchmarks starts with. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** Whether the suite can run here; under CI=true it always tries, so a missing browser fails. */
export const browserAvailable = existsSync(CHROMIUM_PATH) || process.env.CI === 'true'

export interface TestBrowser {
  browser: Browser
  /** Where the browser saves downloads before playwright hands them out. */
  downloadsDir: string
  close(): Promise<void>
}

/** Starts Chromium with CHROMIUM_ARGS and `extraArgs` after them. */
export async function launchBrowser(extraArgs: string[] = []): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: install Debian's chromium package or set CHROMIUM_PATH`,
    )
  }
  const downloads = await tempDir('fileshare-e2e-downloads-')
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS, ...extraArgs],
    downloadsPath: downloads.path,
  })
  return {
    browser,
    downloadsDir: downloads.path,
    async close() {
      await browser.close()
      await downloads.remove()
    },
  }
}

export type ContextOptions = Pick<
  BrowserContextOptions,
  'colorScheme' | 'viewport' | 'baseURL' | 'locale'
>

/**
 * A fresh profile: no cookies, no IndexedDB, no service worker; downloads accepted. The browser
 * prefers US English unless told otherwise, so the pages speak the language the tests look for.
 */
export async function newContext(
  browser: Browser,
  options: ContextOptions = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({
    acceptDownloads: true,
    viewport: { width: 1280, height: 900 },
    colorScheme: 'light',
    locale: 'en-US',
    ...options,
  })
  context.setDefaultTimeout(30_000)
  return context
}
