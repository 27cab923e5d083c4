/**
 * File requests through the pages: the requester creates one and keeps two links; a sender (a
 * second browser) reads the message and sends a file and a note; the requester's inbox (a third
 * browser) lists, downloads, reads, deletes, closes and deletes the request.
 */
import { mkdir } from 'node:fs/promises'

import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'

import { pickFiles } from './actions.js'
import { browserAvailable, downloadedFile } from './browser.js'
import { sha256File, writePseudoRandomFile } from './files.js'
import { useSuite } from './suite.js'
import { useTempDir } from './temp-dir.js'

const UPLOAD_LINK = /^Upload link/
const INBOX_LINK = /^Inbox link/

describe.runIf(browserAvailable)('file requests in the browser', () => {
  const suite = useSuite()
  const dir = useTempDir()

  async function createRequest(
    message: string,
    password?: string,
  ): Promise<{ uploadLink: string; inboxLink: string }> {
    const page = await suite.open('/request')
    await page.getByRole('textbox', { name: 'Message to senders' }).fill(message)
    await page.getByRole('checkbox', { name: 'Senders may add a note' }).check()
    if (password) await page.getByLabel('Inbox password (optional)').fill(password)
    await page.getByRole('button', { name: 'Create request' }).click()
    await page.getByRole('heading', { name: 'Your file request is ready' }).waitFor()
    return {
      uploadLink: await page.getByRole('textbox', { name: UPLOAD_LINK }).inputValue(),
      inboxLink: await page.getByRole('textbox', { name: INBOX_LINK }).inputValue(),
    }
  }

  async function openInbox(link: string): Promise<Page> {
    const page = await suite.open(link)
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor()
    return page
  }

  it('takes a file and a note from a sender into the inbox, which downloads, reads and manages them', async () => {
    const { uploadLink, inboxLink } = await createRequest('Please send your CV and a cover note.')
    expect(uploadLink).toMatch(new RegExp(`^${suite.url}/r/[0-9a-f-]{36}#.+`))
    expect(inboxLink).toMatch(new RegExp(`^${suite.url}/i/[0-9a-f-]{36}#.+`))
    expect(uploadLink).not.toBe(inboxLink)

    const source = dir.join('cv.pdf')
    await writePseudoRandomFile(source, 1_500_000)
    const sender = await suite.open(uploadLink)
    await sender
      .getByRole('region', { name: 'Message from the requester' })
      .getByText('Please send your CV and a cover note.')
      .waitFor()
    await pickFiles(sender, source)
    await sender.getByRole('textbox', { name: 'Note (optional)' }).fill('Available from May.')
    await sender.getByRole('button', { name: 'Send', exact: true }).click()
    await sender.getByRole('heading', { name: 'Sent', level: 1 }).waitFor({ timeout: 60_000 })

    const inbox = await openInbox(inboxLink)
    const received = inbox.getByRole('region', { name: 'Received' })
    await received.getByRole('heading', { name: 'cv.pdf' }).waitFor()
    // A file with its note is one sender's upload of the 10 asked for.
    await inbox.getByText('1 of 10 uploads used').waitFor()

    const [download] = await Promise.all([
      inbox.waitForEvent('download'),
      received.getByRole('button', { name: 'Download cv.pdf' }).click(),
    ])
    expect(download.suggestedFilename()).toBe('cv.pdf')
    expect(await sha256File(await downloadedFile(download))).toBe(await sha256File(source))
    await inbox.getByRole('status').filter({ hasText: 'cv.pdf was saved.' }).waitFor()

    await received.getByRole('button', { name: 'Show the note' }).click()
    await received.getByText('Available from May.').waitFor()

    await received.getByRole('button', { name: 'Delete cv.pdf' }).click()
    await inbox.getByRole('button', { name: 'Yes, delete' }).click()
    await inbox.getByRole('status').filter({ hasText: 'cv.pdf was deleted.' }).waitFor()
    expect(await received.getByRole('heading', { name: 'cv.pdf' }).count()).toBe(0)

    const manage = inbox.getByRole('region', { name: 'Manage request' })
    await manage.getByRole('button', { name: 'Close request' }).click()
    await inbox.getByRole('button', { name: 'Yes, close it' }).click()
    await inbox.getByRole('status').filter({ hasText: 'The request is closed.' }).waitFor()

    const late = await suite.open(uploadLink)
    await late.getByRole('heading', { name: 'This request is closed' }).waitFor()

    await manage.getByRole('button', { name: 'Delete request' }).click()
    await inbox.getByRole('button', { name: 'Yes, delete' }).click()
    await inbox.getByText('The request and everything in it were deleted.').waitFor()
    const gone = await suite.open(inboxLink)
    await gone.getByRole('heading', { name: 'Not found' }).waitFor()
  })

  it('downloads every file of the inbox into one folder, renaming rather than replacing', async () => {
    const { uploadLink, inboxLink } = await createRequest('Two files, please.')
    const first = dir.join('first', 'report.pdf')
    const second = dir.join('second', 'report.pdf')
    await mkdir(dir.join('first'))
    await mkdir(dir.join('second'))
    await writePseudoRandomFile(first, 300_000)
    await writePseudoRandomFile(second, 200_000)
    for (const source of [first, second]) {
      const sender = await suite.open(uploadLink)
      await pickFiles(sender, source)
      await sender.getByRole('button', { name: 'Send', exact: true }).click()
      await sender.getByRole('heading', { name: 'Sent', level: 1 }).waitFor({ timeout: 60_000 })
    }

    // The folder the user would pick: the page's own private file system, which the test can read.
    const context = await suite.context()
    await context.addInitScript(() => {
      Object.assign(window, { showDirectoryPicker: () => navigator.storage.getDirectory() })
    })
    const inbox = await context.newPage()
    await inbox.goto(inboxLink)
    const received = inbox.getByRole('region', { name: 'Received' })
    await expect.poll(() => received.getByRole('heading', { name: 'report.pdf' }).count()).toBe(2)
    await inbox.getByRole('button', { name: 'Download all 2 into a folder' }).click()
    await inbox.getByText('2 of 2 files saved into the folder.').waitFor({ timeout: 60_000 })

    const saved = await inbox.evaluate(async () => {
      const folder = await navigator.storage.getDirectory()
      const files: Record<string, string> = {}
      for (const name of ['report.pdf', 'report (2).pdf']) {
        const file = await (await folder.getFileHandle(name)).getFile()
        const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer())
        files[name] = Array.from(new Uint8Array(digest), (b) =>
          b.toString(16).padStart(2, '0'),
        ).join('')
      }
      return files
    })
    const expected = [await sha256File(first), await sha256File(second)]
    expect(Object.values(saved).sort()).toEqual(expected.sort())
    await received.getByText('report (2).pdf was saved.').waitFor()
  })

  it('locks the inbox with its password: a wrong one is explained, the right one opens it', async () => {
    const { inboxLink } = await createRequest('Send the signed form.', 'inbox secret')
    const page = await suite.open(inboxLink)
    await page.getByRole('heading', { name: 'Password required' }).waitFor()
    const field = page.getByLabel('Password', { exact: true })
    await field.fill('not the secret')
    await page.getByRole('button', { name: 'Unlock' }).click()
    await page.getByRole('alert').filter({ hasText: 'Wrong password' }).waitFor()
    await field.fill('inbox secret')
    await page.getByRole('button', { name: 'Unlock' }).click()
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor()
    await page.getByText('Send the signed form.').waitFor()
    await page.getByText('Nothing has arrived yet.').waitFor()
  })
})
