/**
 * The browser checks the app's code against the hashes the page pins: a module changed on the
 * server after the build, whether loaded by index.html or later, is refused and never runs.
 * Each case hosts its own copy of the build with one file altered.
 */
import { appendFile, cp, readdir, readFile } from 'node:fs/promises'

import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { browserAvailable, newContext, type TestBrowser } from './browser.js'
import { startE2eServer, WEB_ROOT, type E2eServer } from './server.js'
import { useTempDir } from './temp-dir.js'
import { openBrowser, useSuite } from './suite.js'

/** What an altered module would do if it ran: leave a mark a test can look for. */
const PAYLOAD = '\n;globalThis.__altered = true\n'

describe.runIf(browserAvailable)('the served code as built', () => {
  const suite = useSuite()

  it('loads every page with its modules pinned, and the policy allows the import map', async () => {
    const page = await suite.open('/')
    await expect(page.locator('script[type="importmap"]').count()).resolves.toBe(1)
    await page.getByRole('link', { name: /about/i }).first().click()
    await page.waitForURL('**/about')
    // The About page's own heading: the address changes before its module has arrived, and until
    // then the page before it still shows its heading.
    await page.getByRole('heading', { name: 'About', level: 1 }).waitFor()
    // The import map took effect: the browser knows an integrity for a lazily loaded module.
    const pinned = await page.evaluate(() => {
      const map = JSON.parse(document.querySelector('script[type="importmap"]')!.textContent!)
      return Object.keys((map as { integrity: Record<string, string> }).integrity)
    })
    const loaded = await page.evaluate(() =>
      performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname),
    )
    const lazy = loaded.filter((path) => /\/assets\/About-[^/]+\.js$/.test(path))
    expect(lazy).toHaveLength(1)
    expect(pinned).toContain(lazy[0])
  })
})

describe.runIf(browserAvailable)('a module altered on the server', () => {
  const temp = useTempDir('fileshare-e2e-altered-')
  let browser: TestBrowser | undefined
  const servers: E2eServer[] = []

  beforeAll(async () => {
    browser = await openBrowser()
  })
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()))
    await browser?.close()
  })

  /** Hosts a copy of the build whose first asset matching `pattern` has the payload appended. */
  async function hostAltered(name: string, pattern: RegExp): Promise<E2eServer> {
    const root = temp.join(name)
    await cp(WEB_ROOT, root, { recursive: true })
    const file = (await readdir(`${root}/assets`)).find((f) => pattern.test(f))
    if (file === undefined) throw new Error(`no asset matches ${pattern}`)
    await appendFile(`${root}/assets/${file}`, PAYLOAD)
    const server = await startE2eServer({ webRoot: root })
    servers.push(server)
    return server
  }

  async function openPage(url: string): Promise<{ page: Page; refused: string[] }> {
    const context = await newContext(browser!.browser)
    const page = await context.newPage()
    const refused: string[] = []
    page.on('console', (message) => {
      if (/integrity/i.test(message.text())) refused.push(message.text())
    })
    await page.goto(url)
    return { page, refused }
  }

  const altered = (page: Page) =>
    page.evaluate(() => (globalThis as { __altered?: boolean }).__altered === true)

  /** The module index.html starts the app with, by its exact name (other chunks share a prefix). */
  async function entryPattern(): Promise<RegExp> {
    const html = await readFile(`${WEB_ROOT}/index.html`, 'utf8')
    const name = /<script type="module"[^>]* src="\/assets\/([^"]+)"/.exec(html)?.[1]
    if (name === undefined) throw new Error('index.html starts no module')
    return new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)
  }

  it('refuses a module that index.html loads, and the app does not start', async () => {
    const server = await hostAltered('entry', await entryPattern())
    const { page, refused } = await openPage(server.url)
    await expect.poll(() => refused.length, { timeout: 20_000 }).toBeGreaterThan(0)
    expect(await altered(page)).toBe(false)
    expect(await page.locator('#app').innerHTML()).toBe('')
    await page.context().close()
  })

  it('refuses a module loaded later, and the page says it could not be loaded', async () => {
    const server = await hostAltered('lazy', /^About-.*\.js$/)
    const { page, refused } = await openPage(`${server.url}/about`)
    await page.getByText('This page could not be loaded').waitFor({ timeout: 30_000 })
    expect(refused.length).toBeGreaterThan(0)
    expect(await altered(page)).toBe(false)
    await page.context().close()
  })
})
