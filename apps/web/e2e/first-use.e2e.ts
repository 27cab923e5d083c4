/**
 * The app as a first-time user meets it: links whose key does not fit, the last download, the
 * note editor across kinds, a file request's note kept with its files, the ready-to-share pages
 * with a password, forgetting an upload, a script's drop, leaving with picked files, the About
 * page and the narrow layout.
 */
import { readFile } from 'node:fs/promises'

import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'

import {
  createRequestAndReadLinks,
  DOWNLOAD_BUTTON,
  downloadFromPage,
  pickFiles,
  uploadAndReadLink,
} from './actions.js'
import { browserAvailable, downloadedFile } from './browser.js'
import { writePseudoRandomFile } from './files.js'
import { useSuite } from './suite.js'
import { useTempDir } from './temp-dir.js'

const IMPRINT = 'https://operator.example/imprint'
const PRIVACY = 'https://operator.example/privacy'

/** `link`'s path with `other`'s key: a well-formed link whose key belongs to something else. */
function withKeyOf(link: string, other: string): string {
  return `${link.split('#')[0]}#${other.split('#')[1]}`
}

describe.runIf(browserAvailable)('the app as a first-time user meets it', () => {
  const suite = useSuite({ env: { IMPRINT_URL: IMPRINT, PRIVACY_URL: PRIVACY } })
  const dir = useTempDir()

  async function createNote(
    text: string,
    password?: string,
  ): Promise<{ page: Page; link: string }> {
    const page = await suite.open('/note')
    await page.getByRole('textbox', { name: 'Note' }).fill(text)
    if (password) await page.getByLabel('Link password (optional)').fill(password)
    await page.getByRole('button', { name: 'Create note' }).click()
    await page.getByRole('heading', { name: 'Your note is ready to share' }).waitFor()
    return { page, link: await page.getByRole('textbox', { name: 'Note link' }).inputValue() }
  }

  async function uploadFile(name: string, size: number, password?: string) {
    const source = dir.join(name)
    await writePseudoRandomFile(source, size)
    const page = await suite.open('/')
    await pickFiles(page, source)
    if (password) await page.getByLabel('Password (optional)').fill(password)
    return { page, link: await uploadAndReadLink(page) }
  }

  async function createRequest(): Promise<{ uploadLink: string; inboxLink: string }> {
    const page = await suite.open('/request')
    await page.getByRole('checkbox', { name: 'Senders may add a note' }).check()
    await page.getByRole('combobox', { name: 'Number of uploads' }).selectOption('5')
    return createRequestAndReadLinks(page)
  }

  it('says a link’s key does not fit on every page, never asking to sign in', async () => {
    const first = await createNote('first')
    const second = await createNote('second')
    const note = await suite.open(withKeyOf(first.link, second.link))
    await note.getByRole('button', { name: /^Reveal/ }).click()
    await note.getByRole('heading', { name: 'The link’s key does not fit' }).waitFor()
    await note.getByText('The link’s key does not open this note.', { exact: false }).waitFor()
    expect(await note.getByText(/sign in/i).count()).toBe(0)

    const a = await uploadFile('a.bin', 1000)
    const b = await uploadFile('b.bin', 1000)
    const file = await suite.open(withKeyOf(a.link, b.link))
    await file.getByRole('heading', { name: 'The link’s key does not fit' }).waitFor()
    await file.getByText('The link’s key does not open this file.', { exact: false }).waitFor()
    expect(await file.getByText(/tampered/).count()).toBe(0)

    // Request tokens refused answer 404 like an unknown request (spec: Request tokens).
    const one = await createRequest()
    const two = await createRequest()
    for (const link of [
      withKeyOf(one.inboxLink, two.inboxLink),
      withKeyOf(one.uploadLink, two.uploadLink),
    ]) {
      const page = await suite.open(link)
      await page.getByRole('heading', { name: 'Not found' }).waitFor()
      await page.getByText('the link was not copied whole', { exact: false }).waitFor()
      expect(await page.getByText(/sign in/i).count()).toBe(0)
    }
  })

  it('says the password is needed too and that the last download ended the link', async () => {
    const { page, link } = await uploadFile('secret.bin', 2000, 'correct horse')
    await page.getByText('Anyone with this link and the password', { exact: false }).waitFor()
    await page.getByText('Send the password another way', { exact: false }).waitFor()
    const note = await createNote('hush', 'battery staple')
    await note.page.getByText('Anyone with this link and the password', { exact: false }).waitFor()

    const reader = await suite.open(link)
    await reader.getByLabel('Password', { exact: true }).fill('correct horse')
    await reader.getByRole('button', { name: 'Unlock' }).click()
    await downloadFromPage(reader)
    await reader
      .getByRole('status')
      .filter({ hasText: 'That was the last download; this link no longer works.' })
      .waitFor()
    expect(await reader.getByRole('button', { name: DOWNLOAD_BUTTON }).count()).toBe(0)
    await reader.getByRole('link', { name: 'Send something new' }).waitFor()
  })

  it('keeps the text across note kinds and clears the problem when the kind changes', async () => {
    const page = await suite.open('/note')
    await page.getByRole('button', { name: 'Create note' }).click()
    await page.getByText('Write something first.').waitFor()
    await page.getByRole('radio', { name: 'Markdown', exact: true }).check()
    expect(await page.getByText('Write something first.').count()).toBe(0)
    await page.getByRole('textbox', { name: 'Markdown' }).fill('# Plan\nship it')
    await page.getByRole('radio', { name: 'Code', exact: true }).check()
    expect(await page.getByRole('textbox', { name: 'Code' }).inputValue()).toBe('# Plan\nship it')
    await page.getByRole('radio', { name: 'Text', exact: true }).check()
    expect(await page.getByRole('textbox', { name: 'Note' }).inputValue()).toBe('# Plan\nship it')
    // An empty password list claims no size.
    await page.getByRole('radio', { name: 'Passwords', exact: true }).check()
    await page.getByText(/^Up to 1\sMiB$/).waitFor()
  })

  it('saves a generated SSH private key as a file', async () => {
    const page = await suite.open('/note')
    await page.getByRole('radio', { name: 'SSH key', exact: true }).check()
    await page.getByRole('button', { name: 'Generate Ed25519 key pair' }).click()
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Save private key as file' }).click(),
    ])
    expect(download.suggestedFilename()).toBe('id_ed25519')
    const text = await readFile(await downloadedFile(download), 'utf8')
    expect(text).toMatch(
      /^-----BEGIN OPENSSH PRIVATE KEY-----\n[\s\S]+-----END OPENSSH PRIVATE KEY-----\n$/,
    )
    expect(await page.getByRole('textbox', { name: 'SSH keys' }).inputValue()).toContain(
      text.trim(),
    )
  })

  it('shows a sender’s note under its files, counts them as one upload and deletes them together', async () => {
    const { uploadLink, inboxLink } = await createRequest()
    const source = dir.join('cv.pdf')
    await writePseudoRandomFile(source, 3000)
    const sender = await suite.open(uploadLink)
    await sender.getByText(/^\d+ uploads? left$/).waitFor()
    const before = Number(
      (await sender.getByText(/^\d+ uploads? left$/).textContent())?.split(' ')[0],
    )
    await pickFiles(sender, source)
    await sender.getByRole('textbox', { name: 'Note (optional)' }).fill('Available from May.')
    await sender.getByRole('button', { name: 'Send', exact: true }).click()
    await sender.getByRole('heading', { name: 'Sent', level: 1 }).waitFor()

    const inbox = await suite.open(inboxLink)
    const received = inbox.getByRole('region', { name: 'Received' })
    const entry = received
      .getByRole('listitem')
      .filter({ has: inbox.getByRole('heading', { name: 'cv.pdf' }) })
    await entry.getByRole('heading', { name: 'The sender’s note' }).waitFor()
    await inbox.getByText(`1 of ${before} uploads used`).waitFor()
    expect(await received.getByRole('heading', { name: 'Note from a sender' }).count()).toBe(0)
    await entry.getByRole('button', { name: 'Show the note' }).click()
    await entry.getByText('Available from May.').waitFor()

    await entry.getByRole('button', { name: 'Delete cv.pdf' }).click()
    await inbox.getByText('Delete cv.pdf and the note that came with it for good?').waitFor()
    await inbox.getByRole('button', { name: 'Yes, delete' }).click()
    await inbox.getByRole('status').filter({ hasText: 'cv.pdf was deleted.' }).waitFor()
    await inbox.getByRole('button', { name: 'Refresh' }).click()
    await received.getByText('Nothing has arrived yet.').waitFor()
  })

  it('asks before forgetting an upload and says it stays on the server', async () => {
    const { page } = await uploadFile('kept.bin', 500)
    await page.getByRole('link', { name: 'My uploads' }).click()
    await page.getByRole('heading', { name: 'kept.bin' }).waitFor()
    await page.getByRole('button', { name: 'Forget kept.bin' }).click()
    const confirm = page.getByRole('group', { name: /^Forget "kept.bin"\?/ })
    await confirm
      .getByText('The upload itself stays on the server until it expires.', { exact: false })
      .waitFor()
    await confirm.getByRole('button', { name: 'Cancel' }).click()
    await page.getByRole('heading', { name: 'kept.bin' }).waitFor()
    await page.getByRole('button', { name: 'Forget kept.bin' }).click()
    await confirm.getByRole('button', { name: 'Forget' }).click()
    await page.getByText('Nothing sent from this browser yet.').waitFor()
  })

  it('takes files from a drop without entries and asks before leaving them', async () => {
    const page = await suite.open('/')
    await page.getByRole('group', { name: 'Drop files or folders here' }).waitFor()
    // A drop made by a script: Chromium gives its items no file system entries.
    await page.evaluate(() => {
      const data = new DataTransfer()
      data.items.add(new File(['dropped bytes'], 'dropped.txt', { type: 'text/plain' }))
      const zone = document.querySelector('[aria-label="Drop files or folders here"]')!
      zone.dispatchEvent(
        new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }),
      )
      zone.dispatchEvent(
        new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }),
      )
    })
    await page.getByRole('listitem').filter({ hasText: 'dropped.txt' }).waitFor()

    const dialogs: string[] = []
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.type())
      void dialog.dismiss()
    })
    await page.getByRole('link', { name: 'My uploads' }).click()
    await expect.poll(() => dialogs).toEqual(['confirm'])
    expect(new URL(page.url()).pathname).toBe('/')
  })

  it('names each page in the title and links the About page with the operator’s texts', async () => {
    const page = await suite.open('/')
    await expect.poll(() => page.title()).toBe('Send files · fileshare')
    await page.getByRole('link', { name: 'About this service' }).click()
    await page.getByRole('heading', { name: 'About', level: 1 }).waitFor()
    await expect.poll(() => page.title()).toBe('About · fileshare')
    await page
      .getByRole('heading', { name: 'What the operator of this server can and cannot see' })
      .waitFor()
    const main = page.getByRole('main')
    expect(await main.getByRole('link', { name: 'Imprint' }).getAttribute('href')).toBe(IMPRINT)
    expect(await main.getByRole('link', { name: 'Privacy statement' }).getAttribute('href')).toBe(
      PRIVACY,
    )
    await page.getByRole('link', { name: 'My uploads' }).click()
    await expect.poll(() => page.title()).toBe('My uploads · fileshare')
  })

  it('loads a page whose code did not arrive the first time, as after a dropped connection', async () => {
    const page = await suite.open('/')
    await page.getByRole('heading', { name: 'Send files', level: 1 }).waitFor()
    // The About page's code fails twice on its way, as while the connection is away.
    let refused = 0
    await page.route(/\/assets\/About-[^/]+\.js$/, async (route) => {
      if (refused < 2) {
        refused++
        await route.abort('connectionreset')
        return
      }
      await route.continue()
    })
    await page.getByRole('link', { name: 'About this service' }).click()
    await page.getByRole('heading', { name: 'About', level: 1 }).waitFor()
    expect(refused).toBe(2)
    expect(await page.getByText('This page could not be loaded').count()).toBe(0)
  })

  it('fits the navigation on one line at 360 px behind a menu, with an icon for the password', async () => {
    const page = await suite.open('/', { viewport: { width: 360, height: 740 } })
    const header = page.getByRole('banner')
    const menu = header.getByRole('button', { name: 'Menu' })
    const brand = header.getByRole('link', { name: 'fileshare' })
    const [menuBox, brandBox] = await Promise.all([menu.boundingBox(), brand.boundingBox()])
    // One line: the menu button sits beside the brand, not under it.
    expect(
      Math.abs(menuBox!.y + menuBox!.height / 2 - (brandBox!.y + brandBox!.height / 2)),
    ).toBeLessThan(8)
    expect(await header.getByRole('link', { name: 'My uploads' }).isVisible()).toBe(false)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
    await menu.click()
    expect(await menu.getAttribute('aria-expanded')).toBe('true')
    await header.getByRole('link', { name: 'My uploads' }).click()
    await page.getByRole('heading', { name: 'My uploads', level: 1 }).waitFor()
    expect(await menu.getAttribute('aria-expanded')).toBe('false')

    await page.goto(`${suite.url}/note`)
    // An icon: far narrower than the words "Show password" would make it.
    const toggle = page.getByRole('button', { name: 'Show password' })
    expect((await toggle.boundingBox())!.width).toBeLessThan(60)
  })
})
