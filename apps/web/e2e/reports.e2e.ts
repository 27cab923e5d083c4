/**
 * Abuse reports and takedowns through the pages: a visitor reports a download from its page,
 * the operator sees the report with `fileshare-admin reports` (the key only when the visitor
 * included it), takes the item down with `fileshare-admin rm`, and its page then says "Removed
 * by the operator" instead of "expired"; the note page likewise.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

import { parseLink } from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import { browserAvailable } from './browser.js'
import { shareFromNode } from './node-client.js'
import { useSuite } from './suite.js'

const ADMIN_ENTRY = fileURLToPath(new URL('../../server/dist/admin.js', import.meta.url))
const run = promisify(execFile)

describe.runIf(browserAvailable)('abuse reports and takedowns in the browser', () => {
  const suite = useSuite()

  /** Runs fileshare-admin with `--json` on the suite server's configuration. */
  async function admin<T>(...args: string[]): Promise<T> {
    const { stdout } = await run(process.execPath, [ADMIN_ENTRY, '--json', ...args], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: suite.server.dataDir, BASE_URL: suite.url },
    })
    return JSON.parse(stdout) as T
  }

  it('files a report from the download page that the operator lists, and a takedown shows', async () => {
    const sent = await shareFromNode(suite.url, { size: 2048, seed: 'report', name: 'bad.exe' })
    const { link } = parseLink(sent.link)
    const page = await suite.open(sent.link)
    await page.getByRole('listitem').filter({ hasText: 'bad.exe' }).waitFor()

    await page.getByRole('button', { name: 'Report' }).click()
    const form = page.getByRole('form', { name: 'Report this to the operator' })
    // The page says plainly what leaving the key out means, and leaves it out unless asked.
    await form.getByText('Without the key the operator cannot see the content').waitFor()
    const includeKey = form.getByRole('checkbox', { name: 'Include the key of this link' })
    expect(await includeKey.isChecked()).toBe(false)
    await form.getByRole('textbox', { name: 'Reason' }).fill('Malware posing as an invoice')
    await includeKey.check()
    await form.getByRole('button', { name: 'Send report' }).click()
    await page.getByText('Thank you. Your report was sent to the operator.').waitFor()

    const listed = await admin<{ reports: Record<string, unknown>[] }>('reports')
    expect(listed.reports).toHaveLength(1)
    expect(listed.reports[0]).toMatchObject({
      targetId: link.id,
      reason: 'Malware posing as an invoice',
      status: 'open',
      hasKey: true,
    })
    const shown = await admin<{ report: { link: string } }>(
      'reports',
      'show',
      String(listed.reports[0]!.id),
    )
    // With the key the operator can open exactly what the visitor saw.
    expect(shown.report.link).toBe(sent.link)

    await admin('rm', link.id, '--reason', 'Malware')
    await admin('reports', 'resolve', String(listed.reports[0]!.id))
    const again = await suite.open(sent.link)
    await again.getByRole('heading', { name: 'Removed by the operator' }).waitFor()
    await again.getByText('The operator’s reason: Malware').waitFor()
    expect(await again.getByText('expired').count()).toBe(0)
  })

  it('reports a note without its key, and shows its takedown', async () => {
    const page = await suite.open('/note')
    await page.getByRole('textbox', { name: 'Note' }).fill('Buy cheap followers now')
    await page.getByRole('button', { name: 'Create note' }).click()
    await page.getByRole('heading', { name: 'Your note is ready to share' }).waitFor()
    const noteLink = await page.getByRole('textbox', { name: 'Note link' }).inputValue()
    const { link } = parseLink(noteLink)

    const view = await suite.open(noteLink)
    await view.getByRole('button', { name: 'Report' }).click()
    await view.getByRole('textbox', { name: 'Reason' }).fill('Spam')
    await view.getByRole('button', { name: 'Send report' }).click()
    await view.getByText('Thank you. Your report was sent to the operator.').waitFor()

    const listed = await admin<{ reports: Record<string, unknown>[] }>('reports')
    const filed = listed.reports.find((r) => r.targetId === link.id)
    expect(filed).toMatchObject({ reason: 'Spam', hasKey: false })

    await admin('rm', link.id)
    const gone = await suite.open(noteLink)
    await gone.getByRole('heading', { name: 'Removed by the operator' }).waitFor()
    await gone
      .getByText('The operator of this service removed what this link pointed to.')
      .waitFor()
  })
})
