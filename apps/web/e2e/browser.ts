/**
 * Debian's Chromium driven by playwright-core for the end-to-end suite and the benchmark: the
 * run's shared Chromium reached by its address (chromium-server.ts), or one launched for a file
 * that needs flags of its own. Every test gets a fresh context (its own storage, service workers
 * and downloads); saved downloads land in a temporary directory that is removed with the browser.
 * Under CI=true a missing Chromium fails the suite instead of skipping it.
 */
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { join } from 'node:path'

import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Download,
} from 'playwright-core'

import { tempDir, type TempDir } from './files.js'

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

/** Where the downloads of a connected browser are copied to; absent for a launched one. */
const copiesDirs = new WeakMap<Browser, string>()
const saved = new WeakMap<Download, Promise<string>>()

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
  return testBrowser(browser, downloads)
}

/**
 * Connects to the Chromium server at `endpoint`. Closing disconnects, which closes the contexts
 * opened through this connection and leaves the browser to the other files.
 */
export async function connectBrowser(endpoint: string): Promise<TestBrowser> {
  const downloads = await tempDir('fileshare-e2e-downloads-')
  const browser = await chromium.connect(endpoint)
  copiesDirs.set(browser, downloads.path)
  return testBrowser(browser, downloads)
}

function testBrowser(browser: Browser, downloads: TempDir): TestBrowser {
  return {
    browser,
    downloadsDir: downloads.path,
    async close() {
      await browser.close()
      await downloads.remove()
    },
  }
}

/**
 * The path of a finished download on this machine: the browser's own file for a launched
 * browser, a copy in the connection's downloads directory for a connected one, which gives no
 * path. Waits for the download to finish; asking twice answers the same file.
 */
export function downloadedFile(download: Download): Promise<string> {
  let path = saved.get(download)
  if (path === undefined) {
    const copies = copiesDirs.get(download.page().context().browser()!)
    path =
      copies === undefined
        ? download.path()
        : (async () => {
            const copy = join(copies, randomUUID())
            await download.saveAs(copy)
            return copy
          })()
    saved.set(download, path)
  }
  return path
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
