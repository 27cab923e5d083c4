/**
 * Resumed uploads on the home page: the scenarios both upload pages pass (resume-scenarios.ts),
 * and the page's own: it says so when the server no longer has the upload, a cancel while the
 * upload waits to resume ends it on the server, a file overwritten in place while the page was
 * away is refused by the record tags kept in IndexedDB, and a password-protected upload keeps
 * only what its password protects and takes the password again.
 */
import { stat, utimes } from 'node:fs/promises'

import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'

import { RESUME_STORAGE_KEY } from '../src/lib/upload/resume-keys.js'
import { downloadFromPage, pickFiles } from './actions.js'
import { browserAvailable, downloadedFile } from './browser.js'
import { PAGE_CLOSED_DROPS, useDroppingSuite } from './dropping-suite.js'
import { sha256File, writePseudoRandomFile } from './files.js'
import {
  describeResumeScenarios,
  reloadMidUpload,
  storedState,
  type StoredUpload,
  type UploadPage,
} from './resume-scenarios.js'
import { useTempDir } from './temp-dir.js'

const MB = 1_000_000

const shareLink = (page: Page) => page.getByRole('textbox', { name: 'Share link' })

/** The home page: its upload ends with a share link, which another browser downloads. */
const HOME_PAGE: UploadPage = {
  name: 'the upload page',
  submit: 'Upload',
  target: (run) =>
    Promise.resolve({
      path: '/',
      storageKey: RESUME_STORAGE_KEY,
      socketPath: '/api/upload/ws',
      sent: (page) => shareLink(page).waitFor({ timeout: 120_000 }),
      receivedHash: async (page) => run.downloadedHash(await shareLink(page).inputValue()),
    }),
}

/** A normal upload's owner token, its credential for a status request or a cancel. */
function ownerTokenOf(kept: StoredUpload): string {
  const token = kept.upload.ownerToken
  if (typeof token !== 'string') throw new Error('the kept upload has no owner token')
  return token
}

const dir = useTempDir()

describeResumeScenarios(HOME_PAGE, dir)

describe.runIf(browserAvailable)('an upload the server no longer has', () => {
  const run = useDroppingSuite(PAGE_CLOSED_DROPS)

  it('says so when the same file is picked, and forgets the upload', async () => {
    const source = dir.join('ended.bin')
    await writePseudoRandomFile(source, 20 * MB + 1)
    const target = await HOME_PAGE.target(run, true)
    const { page, kept } = await reloadMidUpload(run, HOME_PAGE, target, source)
    // Ended on the server behind the page's back, as the cleanup of an idle session would.
    const ended = await fetch(`${run.suite.server.url}/api/upload/${kept.upload.session.id}`, {
      method: 'DELETE',
      headers: { 'X-Owner-Token': ownerTokenOf(kept) },
    })
    expect(ended.status).toBe(200)

    await pickFiles(page, source)
    await page.getByRole('button', { name: 'Resume upload' }).click()
    await page.getByText('The server no longer has the unfinished upload').waitFor()
    expect(await storedState(page, RESUME_STORAGE_KEY)).toBeNull()
    await expect(page.getByRole('button', { name: 'Resume upload' }).count()).resolves.toBe(0)
  })
})

describe.runIf(browserAvailable)('an upload cancelled while it waits to resume', () => {
  const run = useDroppingSuite(PAGE_CLOSED_DROPS)

  it('ends the session on the server and forgets it in the browser', async () => {
    const source = dir.join('cancelled.bin')
    await writePseudoRandomFile(source, 20 * MB + 7)
    const page = await run.open()
    // Its status requests fail as a lost connection would: after the drop it waits to resume.
    await page
      .context()
      .route(/\/api\/upload\/[^/]+\/status$/, (route) => route.abort('connectionrefused'))
    await pickFiles(page, source)
    await page.getByRole('button', { name: HOME_PAGE.submit, exact: true }).click()
    await expect.poll(() => run.proxy.drops, { timeout: 60_000 }).toBe(1)
    const kept = JSON.parse((await storedState(page, RESUME_STORAGE_KEY))!) as StoredUpload
    await run.linkBack()
    await page.getByRole('button', { name: 'Cancel', exact: true }).click()
    await page.getByText('Upload cancelled.').waitFor()
    expect(await storedState(page, RESUME_STORAGE_KEY)).toBeNull()
    const status = () =>
      fetch(`${run.suite.server.url}/api/upload/${kept.upload.session.id}/status`, {
        headers: { 'X-Owner-Token': ownerTokenOf(kept) },
      }).then((answer) => answer.status)
    await expect.poll(status, { timeout: 10_000 }).toBe(404)
  })
})

describe.runIf(browserAvailable)(
  'an upload whose file was overwritten while the page was away',
  () => {
    const run = useDroppingSuite(PAGE_CLOSED_DROPS)

    // Security: size and time are no proof. The file rewritten in place with both kept is never
    // sealed again under the nonces it used: the record tags kept in IndexedDB refuse it.
    it('refuses the file picked again, names it, and forgets the upload', async () => {
      const source = dir.join('overwritten.bin')
      // A whole second, which the file gets back exactly once it is overwritten.
      const time = new Date('2025-03-04T05:06:07Z')
      await writePseudoRandomFile(source, 20 * MB + 3)
      await utimes(source, time, time)
      const target = await HOME_PAGE.target(run, true)
      const { page } = await reloadMidUpload(run, HOME_PAGE, target, source)
      await writePseudoRandomFile(source, 20 * MB + 3, 'another version')
      await utimes(source, time, time)
      expect((await stat(source)).mtimeMs).toBe(time.getTime())

      await pickFiles(page, source)
      await page.getByRole('button', { name: 'Resume upload' }).click()
      await page
        .getByRole('alert')
        .filter({ hasText: 'overwritten.bin changed while it was being sent. Send it again.' })
        .waitFor()
      expect(await storedState(page, RESUME_STORAGE_KEY)).toBeNull()
    })
  },
)

describe.runIf(browserAvailable)('a password-protected upload whose page closed', () => {
  const run = useDroppingSuite(PAGE_CLOSED_DROPS)

  // Security: the browser's storage keeps only what the password protects.
  it('keeps neither its secret nor its owner token, and resumes with its password', async () => {
    const source = dir.join('locked.bin')
    await writePseudoRandomFile(source, 20 * MB + 5)
    const target = await HOME_PAGE.target(run, true)
    const { page } = await reloadMidUpload(run, HOME_PAGE, target, source, (first) =>
      first.getByLabel('Password (optional)').fill('correct horse'),
    )
    const { upload } = JSON.parse((await storedState(page, RESUME_STORAGE_KEY))!) as {
      upload: Record<string, unknown>
    }
    expect(Object.keys(upload).sort()).toEqual(['passwordLock', 'salt', 'session', 'size'])

    await pickFiles(page, source)
    const password = page.getByLabel('Password of the unfinished upload')
    await password.fill('wrong horse')
    await page.getByRole('button', { name: 'Resume upload' }).click()
    await page.getByRole('alert').filter({ hasText: 'Wrong password' }).waitFor({ timeout: 60_000 })
    expect(await storedState(page, RESUME_STORAGE_KEY)).not.toBeNull()

    await password.fill('correct horse')
    await page.getByRole('button', { name: 'Resume upload' }).click()
    await target.sent(page)
    expect(await storedState(page, RESUME_STORAGE_KEY)).toBeNull()

    const receiver = await (await run.suite.context()).newPage()
    await receiver.goto(await shareLink(page).inputValue())
    await receiver.getByLabel('Password', { exact: true }).fill('correct horse')
    await receiver.getByRole('button', { name: 'Unlock' }).click()
    const download = await downloadFromPage(receiver)
    expect(await sha256File(await downloadedFile(download))).toBe(await sha256File(source))
  })
})
