/**
 * The upload allowance (FILE_UPLOAD_QUOTA_BYTES) on the upload pages: what is left is shown
 * before anything is sent, a pick larger than that is refused on the page with the reason, and
 * the figure follows the uploads made, on the home page and on a request's sender page alike.
 */
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'

import { pickFiles, uploadAndReadLink } from './actions.js'
import { browserAvailable } from './browser.js'
import { writePseudoRandomFile } from './files.js'
import { useSuite } from './suite.js'
import { useTempDir } from './temp-dir.js'

/** Waits for the page's refusal of a pick larger than the `left` of the allowance. */
function overQuota(page: Page, left: string): Promise<void> {
  return page
    .getByRole('alert')
    .filter({ hasText: `This is larger than the ${left} left of your upload allowance` })
    .waitFor()
}

describe.runIf(browserAvailable)('the upload allowance in the browser', () => {
  // 1 MiB for every client of this suite: they all come from 127.0.0.1.
  const suite = useSuite({ env: { FILE_UPLOAD_QUOTA_BYTES: '1MB' } })
  const dir = useTempDir()

  it('shows what is left, refuses a larger pick on the page and counts what was sent', async () => {
    const big = dir.join('big.bin')
    const small = dir.join('small.bin')
    await writePseudoRandomFile(big, 2_000_000)
    await writePseudoRandomFile(small, 600_000)

    const page = await suite.open('/')
    await page
      .getByText(
        /upload allowance on this server: 1\sMiB of 1\sMiB left\. It renews in \d+ (hour|minute)/,
      )
      .waitFor()
    await pickFiles(page, big)
    await overQuota(page, '1 MiB')
    expect(await page.getByRole('button', { name: 'Upload', exact: true }).isDisabled()).toBe(true)

    await page.getByRole('button', { name: 'Remove big.bin' }).click()
    await pickFiles(page, small)
    expect(await page.getByRole('alert').count()).toBe(0)
    await uploadAndReadLink(page)

    // 600,000 bytes travel as 600,016 (one record's tag): 448,560 of 1,048,576 are left.
    await page.getByRole('button', { name: 'Send another' }).click()
    await page.getByText(/: 438\sKiB of 1\sMiB left/).waitFor()
    await pickFiles(page, small)
    await overQuota(page, '438 KiB')

    // A sender's uploads into a request draw on the same allowance.
    const creator = await suite.open('/request')
    await creator.getByRole('textbox', { name: 'Message to senders' }).fill('Send the photos.')
    await creator.getByRole('button', { name: 'Create request' }).click()
    const uploadLink = await creator.getByRole('textbox', { name: /^Upload link/ }).inputValue()
    const sender = await suite.open(uploadLink)
    await sender.getByText(/: 438\sKiB of 1\sMiB left/).waitFor()
    await pickFiles(sender, small)
    await overQuota(sender, '438 KiB')
    // Send refuses it too, without sending anything and without saying it twice: the server
    // sees one quota reservation in all, the one of the small file sent afterwards.
    const { quota } = suite.server.service.services
    const reserve = quota.reserve.bind(quota)
    let reservations = 0
    // Every argument passes on: the last is the transaction that writes the session's row.
    quota.reserve = (...args) => {
      reservations++
      return reserve(...args)
    }
    await sender.getByRole('button', { name: 'Send', exact: true }).click()
    await sender.getByRole('button', { name: 'Send', exact: true }).waitFor()
    expect(await sender.getByRole('alert').filter({ hasText: '438 KiB left' }).count()).toBe(1)
    const tiny = dir.join('tiny.bin')
    await writePseudoRandomFile(tiny, 10_000)
    await sender.getByRole('button', { name: 'Remove small.bin' }).click()
    await pickFiles(sender, tiny)
    await sender.getByRole('button', { name: 'Send', exact: true }).click()
    await sender.getByRole('heading', { name: 'Sent', exact: true }).waitFor()
    expect(reservations).toBe(1)
  })
})
