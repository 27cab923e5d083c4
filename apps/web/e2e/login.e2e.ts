/**
 * The optional login against a real OpenID provider (oidc-provider on loopback, its own login
 * and consent pages filled in the browser): with every creation protected, the pages offer
 * "Sign in" instead of failing; after signing in the upload works and the header names the
 * user; signing out brings "Sign in" back. Reading stays public: a signed-out browser downloads.
 * A signed-in user makes an API token on the settings page, the command line uploads with it,
 * and once it is revoked there the command line is refused.
 */
import { freePort } from '@fileshare/testing'
import { createTestProvider, type TestProvider } from '@fileshare/testing/oidc-provider'
import { afterAll, describe, expect, it } from 'vitest'

import type { Page } from 'playwright-core'

import { downloadFromPage, pickFiles, uploadAndReadLink } from './actions.js'
import { browserAvailable, downloadedFile } from './browser.js'
import { runCli } from './cli.js'
import { sha256File, writePseudoRandomFile } from './files.js'
import { captureAll, unnamedControls } from './screenshots.js'
import { useSuite } from './suite.js'
import { useTempDir } from './temp-dir.js'

const GATES = [
  { path: '/', text: 'This server lets only signed-in users send files.' },
  { path: '/note', text: 'This server lets only signed-in users create notes.' },
  { path: '/request', text: 'This server lets only signed-in users create file requests.' },
]

describe.runIf(browserAvailable)('login with an OpenID provider', () => {
  let provider: TestProvider | undefined
  const dir = useTempDir()

  const suite = useSuite(async () => {
    const port = await freePort()
    provider = await createTestProvider({ redirectUri: `http://127.0.0.1:${port}/auth/callback` })
    await provider.start()
    return {
      port,
      allowedOrigins: [provider.issuer],
      env: {
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: provider.clientId,
        OIDC_CLIENT_SECRET: provider.clientSecret,
        OIDC_SESSION_SECRET: 'an end-to-end session secret, long enough',
        OIDC_PROTECT_FILES: 'true',
        OIDC_PROTECT_NOTES: 'true',
        OIDC_PROTECT_REQUESTS: 'true',
      },
    }
  })

  afterAll(async () => {
    await provider?.stop()
  })

  /** Signs in from the upload page's gate through the provider's own login and consent pages. */
  async function signIn(page: Page): Promise<void> {
    await page.getByRole('main').getByRole('link', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Sign-in' }).waitFor()
    await page.getByRole('textbox', { name: 'Enter any login' }).fill('ada')
    await page.getByRole('textbox', { name: 'and password' }).fill('any password')
    await page.getByRole('button', { name: 'Sign-in' }).click()
    await page.getByRole('heading', { name: 'Authorize' }).waitFor()
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.waitForURL(`${suite.url}/`)
    await page.getByText('Signed in as Ada Lovelace').waitFor()
  }

  it('offers Sign in on every creation page instead of the form', async () => {
    const page = await suite.open('/')
    for (const gate of GATES) {
      await page.goto(suite.url + gate.path)
      await page.getByRole('heading', { name: 'Sign in to continue' }).waitFor()
      await page.getByText(gate.text).waitFor()
      expect(await page.getByRole('main').getByRole('link', { name: 'Sign in' }).count()).toBe(1)
      expect(
        await page.getByRole('button', { name: /^(Upload|Create note|Create request)$/ }).count(),
      ).toBe(0)
    }
    // The gate is a page of its own; the screenshot suite cannot reach it without a provider.
    expect(await unnamedControls(page)).toEqual([])
    await captureAll(page, 'sign-in')
  })

  it('signs in at the provider, uploads, and signs out again', async () => {
    const source = dir.join('minutes.txt')
    await writePseudoRandomFile(source, 400_000)
    const page = await suite.open('/')
    await signIn(page)
    await pickFiles(page, source)
    const link = await uploadAndReadLink(page)

    // Downloading needs no login.
    const reader = await suite.open(link)
    const download = await downloadFromPage(reader)
    expect(await sha256File(await downloadedFile(download))).toBe(await sha256File(source))

    await page.getByRole('link', { name: 'Sign out' }).click()
    // The server sends the browser on to the provider's end-session page, which asks to confirm.
    const confirm = page.getByRole('button', { name: /^Yes/ })
    await confirm.waitFor()
    await confirm.click()
    await page.goto(suite.url + '/')
    await page.getByRole('heading', { name: 'Sign in to continue' }).waitFor()
    expect(await page.getByText('Signed in as').count()).toBe(0)
  })

  it('makes an API token on the settings page that the command line uploads with until revoked', async () => {
    const source = dir.join('nightly.txt')
    await writePseudoRandomFile(source, 50_000)
    const page = await suite.open('/')
    await signIn(page)
    await page.getByRole('link', { name: 'API tokens' }).click()
    await page.getByRole('heading', { name: 'API tokens', level: 1 }).waitFor()
    await page.getByRole('textbox', { name: 'Name' }).fill('nightly backup')
    await page.getByRole('button', { name: 'Create token' }).click()
    await page.getByRole('heading', { name: 'Your new token' }).waitFor()
    const token = await page.getByRole('textbox', { name: 'Token' }).inputValue()
    expect(token).toMatch(/^fst_[\w-]{43}$/)
    await page.getByRole('heading', { name: 'nightly backup' }).waitFor()
    expect(await unnamedControls(page)).toEqual([])
    expect((await captureAll(page, 'api-tokens')).overflowAt).toEqual([])

    const env = { XDG_CONFIG_HOME: dir.join('token-config'), FILESHARE_TOKEN: token }
    const sent = await runCli(['send', source, '--server', suite.url, '--json'], { env })
    expect(sent.code).toBe(0)
    const { link } = JSON.parse(sent.stdout) as { link: string }
    const reader = await suite.open(link)
    const download = await downloadFromPage(reader)
    expect(await sha256File(await downloadedFile(download))).toBe(await sha256File(source))

    await page.getByRole('button', { name: 'Done' }).click()
    await page.getByRole('button', { name: 'Revoke nightly backup' }).click()
    await page.getByText('You have no API tokens.').waitFor()
    const refused = await runCli(['send', source, '--server', suite.url], { env })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('Invalid or expired API token')
  })
})
