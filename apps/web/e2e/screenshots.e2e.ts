/**
 * A screenshot of every page in the light and dark schemes at 360 px and 1280 px, saved under
 * e2e/artifacts/screenshots/ (`pnpm --filter @fileshare/web screenshots` copies a chosen few to
 * docs/screenshots/). Each page is also checked for what the screenshots cannot show: controls
 * without an accessible name, a missing page heading, sideways scrolling at 360 px, and
 * ignoring the OS colour scheme.
 */
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'

import { DOWNLOAD_BUTTON, pickFiles, uploadAndReadLink } from './actions.js'
import { browserAvailable } from './browser.js'
import { writePseudoRandomFile } from './files.js'
import { shareFromNode } from './node-client.js'
import { captureAll, unnamedControls } from './screenshots.js'
import { useSuite } from './suite.js'
import { useTempDir } from './temp-dir.js'

const MARKDOWN = [
  '# Trip plan',
  '',
  'Meet at **noon** by the north entrance.',
  '',
  '- tickets',
  '- water',
  '',
  '```',
  'train 8:42, platform 3',
  '```',
].join('\n')

describe.runIf(browserAvailable)('screenshots of every page', () => {
  const suite = useSuite()
  const dir = useTempDir()

  beforeAll(async () => {
    await writePseudoRandomFile(dir.join('holiday-photos.zip'), 4_200_000)
    await writePseudoRandomFile(dir.join('itinerary.pdf'), 180_000)
  })

  /**
   * Captures the page and checks it: every control has an accessible name, a level-one heading
   * titles it, it fits 360 px without scrolling sideways, and it follows the colour scheme.
   */
  async function shoot(page: Page, name: string): Promise<void> {
    expect(await unnamedControls(page), `${name} has controls without a name`).toEqual([])
    expect(
      await page.getByRole('heading', { level: 1 }).count(),
      `${name} has no h1`,
    ).toBeGreaterThan(0)
    const captured = await captureAll(page, name)
    expect(captured.overflowAt, `${name} scrolls sideways`).toEqual([])
    expect(captured.background.dark, `${name} ignores the dark scheme`).not.toBe(
      captured.background.light,
    )
  }

  it('upload: empty, with files picked, and the share link', async () => {
    const page = await suite.open('/')
    await page.getByRole('button', { name: 'Choose files' }).waitFor()
    await shoot(page, 'upload')
    await pickFiles(page, [dir.join('holiday-photos.zip'), dir.join('itinerary.pdf')])
    await shoot(page, 'upload-selected')
    await uploadAndReadLink(page)
    await shoot(page, 'upload-done')
  })

  it('download: ready, and asking for a password', async () => {
    const send = (password?: string) =>
      shareFromNode(suite.url, {
        size: 2_500_000,
        seed: 'screenshot',
        name: 'quarterly-report.pdf',
        type: 'application/pdf',
        ...(password ? { password } : {}),
      })
    const plain = await suite.open((await send()).link)
    await plain.getByRole('button', { name: DOWNLOAD_BUTTON }).waitFor()
    await shoot(plain, 'download')

    const locked = await suite.open((await send('hunter2')).link)
    await locked.getByRole('heading', { name: 'Password required' }).waitFor()
    await shoot(locked, 'download-password')
  })

  it('notes: writing with a preview, the link, before and after reveal', async () => {
    const page = await suite.open('/note')
    await page.getByRole('radio', { name: 'Markdown' }).check()
    await page.getByRole('textbox', { name: 'Markdown' }).fill(MARKDOWN)
    await page
      .getByRole('region', { name: 'Preview' })
      .getByRole('heading', { name: 'Trip plan' })
      .waitFor()
    await shoot(page, 'note-new')
    await page.getByRole('combobox', { name: 'View limit' }).selectOption('2')
    await page.getByRole('button', { name: 'Create note' }).click()
    const link = await page.getByRole('textbox', { name: 'Note link' }).inputValue()
    await shoot(page, 'note-done')

    const reader = await suite.open(link)
    await reader.getByRole('button', { name: /^Reveal/ }).waitFor()
    await shoot(reader, 'note-view')
    await reader.getByRole('button', { name: /^Reveal/ }).click()
    await reader.getByRole('heading', { name: 'Trip plan' }).waitFor()
    await shoot(reader, 'note-shown')
  })

  it('file requests: creating, the two links, the sender page and the inbox', async () => {
    const page = await suite.open('/request')
    await page
      .getByRole('textbox', { name: 'Message to senders' })
      .fill('Please send the signed contract and your invoice.')
    await page.getByRole('checkbox', { name: 'Senders may add a note' }).check()
    await shoot(page, 'request-new')
    await page.getByRole('button', { name: 'Create request' }).click()
    const uploadLink = await page.getByRole('textbox', { name: /^Upload link/ }).inputValue()
    const inboxLink = await page.getByRole('textbox', { name: /^Inbox link/ }).inputValue()
    await shoot(page, 'request-done')

    const sender = await suite.open(uploadLink)
    await sender.getByRole('region', { name: 'Message from the requester' }).waitFor()
    await pickFiles(sender, dir.join('itinerary.pdf'))
    await sender
      .getByRole('textbox', { name: 'Note (optional)' })
      .fill('Invoice follows next week.')
    await shoot(sender, 'request-upload')
    await sender.getByRole('button', { name: 'Send', exact: true }).click()
    await sender.getByRole('heading', { name: 'Sent', level: 1 }).waitFor()

    const inbox = await suite.open(inboxLink)
    await inbox.getByRole('heading', { name: 'itinerary.pdf' }).waitFor()
    await shoot(inbox, 'inbox')
  })

  it('my uploads: what this browser sent', async () => {
    const page = await suite.open('/')
    await pickFiles(page, dir.join('itinerary.pdf'))
    await uploadAndReadLink(page)
    await page.goto(`${suite.url}/note`)
    await page.getByRole('textbox', { name: 'Note' }).fill('Wi-Fi: cafe-guest / 4711')
    await page.getByRole('button', { name: 'Create note' }).click()
    await page.getByRole('textbox', { name: 'Note link' }).waitFor()
    await page.goto(`${suite.url}/request`)
    await page.getByRole('textbox', { name: 'Message to senders' }).fill('Photos from Saturday')
    await page.getByRole('button', { name: 'Create request' }).click()
    await page.getByRole('textbox', { name: /^Inbox link/ }).waitFor()
    await page.goto(`${suite.url}/history`)
    await page.getByRole('heading', { name: 'My uploads', level: 1 }).waitFor()
    await page.getByText('itinerary.pdf').first().waitFor()
    await shoot(page, 'history')
  })

  it('error pages: unknown address, unknown link, broken link', async () => {
    const page = await suite.open('/no/such/page')
    await page.getByRole('heading', { name: 'Page not found' }).waitFor()
    await shoot(page, 'not-found')
    await page.goto(
      `${suite.url}/d/00000000-0000-4000-8000-000000000000#AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`,
    )
    await page.getByRole('heading', { name: 'Not found' }).waitFor()
    await shoot(page, 'link-not-found')
    await page.goto(`${suite.url}/n/00000000-0000-4000-8000-000000000000#broken`)
    await page.getByRole('heading', { name: 'Broken link' }).waitFor()
    await shoot(page, 'link-broken')
  })
})
