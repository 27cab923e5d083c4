/**
 * The browser and the command line read each other's shares: a file and a note sent with
 * `fileshare` open in the pages, and a file and a note made in the pages are fetched with
 * `fileshare get` and `fileshare note get`. Both clients share one client core, so any drift in
 * the link format or the crypto shows here.
 */
import { beforeAll, describe, expect, it } from 'vitest'

import { downloadFromPage, pickFiles, uploadAndReadLink } from './actions.js'
import { browserAvailable, downloadedFile } from './browser.js'
import { runCli, runCliJson } from './cli.js'
import { sha256File, writePseudoRandomFile } from './files.js'
import { useSuite } from './suite.js'
import { useTempDir } from './temp-dir.js'

describe.runIf(browserAvailable)('browser and command line', () => {
  const suite = useSuite()
  const dir = useTempDir()
  /** A private config folder, so the command line's history and session stay in the test. */
  let env: Record<string, string>

  beforeAll(async () => {
    env = { XDG_CONFIG_HOME: dir.join('config') }
  })

  it('opens a file sent by the command line and downloads the same bytes', async () => {
    const source = dir.join('from-cli.tar')
    await writePseudoRandomFile(source, 2_345_678)
    const sent = await runCliJson<{ link: string }>(
      ['send', source, '--downloads', '2', '--json', '--server', suite.url],
      { env },
    )
    const page = await suite.open(sent.link)
    await page.getByRole('listitem').filter({ hasText: 'from-cli.tar' }).waitFor()
    await page.getByText('2 downloads left').waitFor()
    const download = await downloadFromPage(page)
    expect(download.suggestedFilename()).toBe('from-cli.tar')
    expect(await sha256File(await downloadedFile(download))).toBe(await sha256File(source))
  })

  it('shows a markdown note sent by the command line', async () => {
    const sent = await runCliJson<{ link: string }>(
      [
        'note',
        '# From the terminal\n\nIt *works*.',
        '--type',
        'markdown',
        '--json',
        '--server',
        suite.url,
      ],
      { env },
    )
    const page = await suite.open(sent.link)
    await page.getByText('Kind: Markdown').waitFor()
    await page.getByRole('button', { name: /^Reveal/ }).click()
    await page.getByRole('heading', { name: 'From the terminal' }).waitFor()
    await page.getByText('works', { exact: true }).waitFor()
  })

  it('lets the command line fetch a file uploaded in the browser', async () => {
    const source = dir.join('from-browser.csv')
    await writePseudoRandomFile(source, 3_210_987)
    const page = await suite.open('/')
    await pickFiles(page, source)
    const link = await uploadAndReadLink(page)

    const out = dir.join('fetched')
    const got = await runCliJson<{ paths: string[] }>(['get', link, '-o', out, '--json'], { env })
    expect(got.paths).toEqual([dir.join('fetched', 'from-browser.csv')])
    expect(await sha256File(dir.join('fetched', 'from-browser.csv'))).toBe(await sha256File(source))
  })

  it('lets the command line read a note written in the browser', async () => {
    const page = await suite.open('/note')
    await page
      .getByRole('textbox', { name: 'Note' })
      .fill('written in the browser, read in a terminal')
    await page.getByRole('button', { name: 'Create note' }).click()
    const link = await page.getByRole('textbox', { name: 'Note link' }).inputValue()

    const read = await runCli(['note', 'get', link], { env })
    expect(read.code, read.stderr).toBe(0)
    expect(read.stdout).toBe('written in the browser, read in a terminal')
  })
})
