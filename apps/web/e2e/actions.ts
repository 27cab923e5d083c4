/**
 * What a person does on the pages, expressed through roles and accessible names only: pick files
 * or a folder, upload and read the share link, open a link and download. The suites build their
 * flows from these.
 */
import type { Download, Page } from 'playwright-core'

import { downloadedFile } from './browser.js'

/** The download page's Download button, which says so when it uses the last download. */
export const DOWNLOAD_BUTTON = /^Download( \(uses the last download\))?$/

/** Clicks the button named `button` that opens the file chooser and answers it with `paths`. */
export async function choose(page: Page, button: string, paths: string | string[]): Promise<void> {
  // Listening is what turns on the browser's file chooser interception; the wait for the button
  // gives that time to arrive before the click opens the chooser.
  const chooser = page.waitForEvent('filechooser', { timeout: 60_000 })
  chooser.catch(() => undefined) // a failure before the chooser opens is the one to report
  const control = page.getByRole('button', { name: button, exact: true })
  await control.waitFor()
  await control.click()
  await (await chooser).setFiles(paths)
}

export function pickFiles(page: Page, paths: string | string[]): Promise<void> {
  return choose(page, 'Choose files', paths)
}

export function pickFolder(page: Page, dir: string): Promise<void> {
  return choose(page, 'Choose folder', dir)
}

/** Clicks "Create request" on the request form and answers the two links it shows. */
export async function createRequestAndReadLinks(
  page: Page,
): Promise<{ uploadLink: string; inboxLink: string }> {
  await page.getByRole('button', { name: 'Create request' }).click()
  await page.getByRole('heading', { name: 'Your file request is ready' }).waitFor()
  return {
    uploadLink: await page.getByRole('textbox', { name: 'Upload link (for senders)' }).inputValue(),
    inboxLink: await page.getByRole('textbox', { name: 'Inbox link (yours)' }).inputValue(),
  }
}

/** Clicks Upload and waits for the share link; answers it. */
export async function uploadAndReadLink(page: Page, timeoutMs = 60_000): Promise<string> {
  await page.getByRole('button', { name: 'Upload', exact: true }).click()
  const link = page.getByRole('textbox', { name: 'Share link' })
  await link.waitFor({ timeout: timeoutMs })
  return link.inputValue()
}

/**
 * Clicks the page's Download button and waits until the browser has the whole file and the page
 * says so; answers the download (`downloadedFile` gives the saved file).
 */
export async function downloadFromPage(page: Page, timeoutMs = 60_000): Promise<Download> {
  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: timeoutMs }),
    page.getByRole('button', { name: DOWNLOAD_BUTTON }).click(),
  ])
  await downloadedFile(download)
  await page
    .getByRole('status')
    .filter({ hasText: 'Download complete.' })
    .waitFor({ timeout: timeoutMs })
  return download
}
