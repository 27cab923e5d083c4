/**
 * What a new sender, recipient and requester meet beyond the first steps: a request for one
 * upload with a note takes one sender's files and counts them so on every page, a folder sent by
 * the command line shows its files and not its folders, a link followed by a chat's or a mail's
 * punctuation opens, the Japanese note page says that revealing uses the last view, and an
 * upload's result names what was sent.
 */
import { mkdir, writeFile } from 'node:fs/promises'

import { beforeAll, describe, expect, it } from 'vitest'

import { createRequestAndReadLinks, pickFiles, pickFolder, uploadAndReadLink } from './actions.js'
import { browserAvailable } from './browser.js'
import { runCliJson } from './cli.js'
import { writePseudoRandomFile } from './files.js'
import { useSuite } from './suite.js'
import { useTempDir } from './temp-dir.js'

describe.runIf(browserAvailable)('counts and links as new users meet them', () => {
  const suite = useSuite()
  const dir = useTempDir()
  /** A private config folder, so the command line's history stays in the test. */
  let env: Record<string, string>

  beforeAll(() => {
    env = { XDG_CONFIG_HOME: dir.join('config') }
  })

  it('takes one sender’s files into a one-upload request with a note, and no second', async () => {
    const page = await suite.open('/request')
    await page.getByRole('checkbox', { name: 'Senders may add a note' }).check()
    await page.getByRole('combobox', { name: 'Number of uploads' }).selectOption('1')
    const { uploadLink, inboxLink } = await createRequestAndReadLinks(page)

    const source = dir.join('only.pdf')
    await writePseudoRandomFile(source, 40_000)
    const sender = await suite.open(uploadLink)
    await sender.getByText('1 upload left').waitFor()
    await pickFiles(sender, source)
    await sender.getByRole('button', { name: 'Send', exact: true }).click()
    await sender.getByRole('heading', { name: 'Sent', level: 1 }).waitFor({ timeout: 60_000 })
    // Files alone used the one upload: the note's slot is no upload left.
    await sender.getByRole('button', { name: 'Send more' }).click()
    await sender.getByRole('heading', { name: 'This request is full' }).waitFor()
    const other = await suite.open(uploadLink)
    await other.getByRole('heading', { name: 'This request is full' }).waitFor()

    const inbox = await suite.open(inboxLink)
    await inbox.getByRole('heading', { name: 'only.pdf' }).waitFor()
    await inbox.getByText('1 of 1 upload used').waitFor()
  })

  it('shows a folder sent by the command line as its files, without its folders', async () => {
    const folder = dir.join('photos')
    await mkdir(dir.join('photos', 'trip'), { recursive: true })
    await writeFile(dir.join('photos', 'trip', 'beach.jpg'), 'sand')
    await writeFile(dir.join('photos', 'trip', 'sunset.jpg'), 'sun')
    await writeFile(dir.join('photos', 'notes.txt'), 'three files')
    const sent = await runCliJson<{ link: string }>(
      ['send', folder, '--json', '--server', suite.url],
      { env },
    )
    const page = await suite.open(sent.link)
    const files = page.getByRole('region', { name: 'Files' }).getByRole('listitem')
    await files.first().waitFor()
    const names = await files.evaluateAll((items) =>
      items.map((item) => item.firstElementChild?.textContent ?? ''),
    )
    expect(names.sort()).toEqual([
      'photos/notes.txt',
      'photos/trip/beach.jpg',
      'photos/trip/sunset.jpg',
    ])
    await page.getByText(/^3 files, /).waitFor()
  })

  it('opens a link followed by the punctuation of a chat or a mail', async () => {
    const sent = await runCliJson<{ link: string }>(
      ['note', 'see you at noon', '--views', '5', '--json', '--server', suite.url],
      { env },
    )
    for (const after of ['.', ')', '>', ' ']) {
      const page = await suite.open(`${sent.link}${after}`)
      await page.getByRole('button', { name: 'Reveal (uses 1 of 5 views)' }).waitFor()
      expect(await page.getByText(/incomplete or damaged/).count()).toBe(0)
    }
  })

  it('says in Japanese that revealing uses the last view', async () => {
    const sent = await runCliJson<{ link: string }>(
      ['note', 'once', '--views', '1', '--json', '--server', suite.url],
      { env },
    )
    const page = await suite.open(sent.link, { locale: 'ja' })
    await page.getByRole('button', { name: '表示する（最後の閲覧を使います）' }).waitFor()
  })

  it('names what was sent and counts a folder’s files, before and after the upload', async () => {
    await mkdir(dir.join('album', 'day-1'), { recursive: true })
    await writeFile(dir.join('album', 'day-1', 'a.jpg'), 'a'.repeat(1024))
    await writeFile(dir.join('album', 'day-1', 'b.jpg'), 'b'.repeat(1024))
    await writeFile(dir.join('album', 'list.txt'), 'c'.repeat(1024))
    const page = await suite.open('/')
    await pickFolder(page, dir.join('album'))
    await page.getByText('3 files, 3 KiB').waitFor()
    await uploadAndReadLink(page)
    const result = page.getByRole('region', { name: 'Your files are ready to share' })
    await result.getByText('album (3 files, 3 KiB)').waitFor()
  })

  it('keeps each SSH key line and a size with its unit on one line at 360 px', async () => {
    const key = `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${'A'.repeat(43)} ada@laptop`
    const sent = await runCliJson<{ link: string }>(
      ['note', key, '--type', 'sshkey', '--json', '--server', suite.url],
      { env },
    )
    const page = await suite.open(sent.link, { viewport: { width: 360, height: 740 } })
    await page.getByRole('button', { name: /^Reveal/ }).click()
    const block = page.getByRole('region', { name: 'Public key' })
    const lines = await block.locator('pre').evaluate((pre) => {
      const range = document.createRange()
      range.selectNodeContents(pre)
      return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size
    })
    expect(lines).toBe(1)

    const file = dir.join('small.bin')
    await writePseudoRandomFile(file, 38 * 1024)
    const shared = await runCliJson<{ link: string }>(
      ['send', file, '--json', '--server', suite.url],
      {
        env,
      },
    )
    const ja = await suite.open(shared.link, {
      locale: 'ja',
      viewport: { width: 360, height: 740 },
    })
    const size = ja
      .getByRole('region', { name: 'ファイル' })
      .getByText(/38\sKiB/)
      .first()
    await size.waitFor()
    expect(await size.textContent()).toContain('38\u00a0KiB')
  })
})
