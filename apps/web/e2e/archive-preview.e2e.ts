/**
 * Looking inside a ZIP download on its page: the recipient opens the archive with one click
 * (one counted download), sees its entries with their sizes, views a text or an image and saves
 * a single file, while the page fetches only the archive's directory and the chosen entries'
 * ranges, never the whole archive, and counts nothing more; once the read grant lapses the page
 * says so. Pages talk to the server through the recording proxy, which counts the bytes.
 */
import { execFile } from 'node:child_process'
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import { promisify } from 'node:util'

import type { Page } from 'playwright-core'
import { afterEach, describe, expect, it } from 'vitest'

import { pickFiles, pickFolder, uploadAndReadLink } from './actions.js'
import { browserAvailable, downloadedFile } from './browser.js'
import { writePseudoRandomFile } from './files.js'
import { useSuite } from './suite.js'
import { useTempDir } from './temp-dir.js'

const MiB = 1024 * 1024
const HOUR = 3600_000
/** A 1×1 PNG. */
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
)

/** Added to the server's clock, to let a read grant lapse. */
let shift = 0

describe.runIf(browserAvailable)('looking inside an archive on the download page', () => {
  const suite = useSuite({
    proxy: true,
    now: () => Date.now() + shift,
    env: { DOWNLOAD_GRANT_TTL_SEC: '3600', FILE_DOWNLOAD_DEFAULT: '5' },
  })
  const dir = useTempDir()

  afterEach(() => {
    shift = 0
  })

  const idOf = (link: string) => new URL(link).pathname.split('/').pop()!

  async function downloadCount(id: string): Promise<number> {
    const response = await fetch(`${suite.url}/api/info/${id}`)
    return ((await response.json()) as { downloadCount: number }).downloadCount
  }

  /** Body bytes the server sent for `GET /api/download/<id>` since the answer at `from`. */
  function downloadBytes(id: string, from = 0): number {
    return suite.proxy.answers
      .slice(from)
      .filter((a) => a.request === `GET /api/download/${id}`)
      .reduce((sum, a) => sum + a.bytes, 0)
  }

  /** A folder of a large incompressible file, a text, a small binary and an image. */
  async function writeAlbum(name: string) {
    const root = dir.join(name)
    await mkdir(dir.join(name, 'notes'), { recursive: true })
    await writePseudoRandomFile(dir.join(name, 'big.bin'), 24 * MiB)
    await writePseudoRandomFile(dir.join(name, 'small.bin'), 3000)
    await writeFile(dir.join(name, 'notes', 'readme.txt'), 'Hello from inside the archive.\n')
    await writeFile(dir.join(name, 'pixel.png'), PIXEL)
    return root
  }

  /** Clicks Open on the page's archive panel and waits for the list of entries. */
  async function openArchive(page: Page) {
    await page.getByRole('heading', { name: 'Inside the archive' }).waitFor()
    await page.getByRole('button', { name: 'Open the archive' }).click()
    const list = page.getByRole('list', { name: 'Files in the archive' })
    await list.waitFor({ timeout: 60_000 })
    return list
  }

  /** Saves one entry with its Save button; answers the saved bytes. */
  async function saveEntry(page: Page, name: string): Promise<Buffer> {
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 60_000 }),
      page.getByRole('button', { name: `Save ${name}`, exact: true }).click(),
    ])
    expect(download.suggestedFilename()).toBe(name)
    const path = await downloadedFile(download)
    await page
      .getByRole('status')
      .filter({ hasText: `${name} saved.` })
      .waitFor()
    return readFile(path)
  }

  it('lists a folder’s archive, views and saves single files, fetching a fraction of it', async () => {
    // Property: opening counts one download, and the entries come by range, not the archive.
    const folder = await writeAlbum('album')
    const sender = await suite.open('/')
    await pickFolder(sender, folder)
    const link = await uploadAndReadLink(sender)
    const id = idOf(link)

    const page = await suite.open(link)
    const from = suite.proxy.answers.length
    const list = await openArchive(page)
    const row = (name: string) => list.getByRole('listitem').filter({ hasText: name })
    await row('big.bin')
      .filter({ hasText: /24(\.0)?\sMiB/ })
      .waitFor()
    await row('readme.txt').filter({ hasText: /31\sB/ }).waitFor()
    await list.getByRole('listitem').filter({ hasText: 'notes/' }).waitFor()

    expect(await saveEntry(page, 'small.bin')).toEqual(
      await readFile(dir.join('album', 'small.bin')),
    )

    await page.getByRole('button', { name: 'View readme.txt' }).click()
    await page.getByText('Hello from inside the archive.').waitFor()

    await page.getByRole('button', { name: 'View pixel.png' }).click()
    const image = page.getByRole('img', { name: 'album/pixel.png' })
    await image.waitFor()
    expect(await image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1)
    expect(await image.getAttribute('src')).toMatch(/^blob:/)

    // The counted download is closed unread and the rest comes in ranges of whole records.
    expect(downloadBytes(id, from)).toBeLessThan((24 * MiB) / 4)
    expect(await downloadCount(id)).toBe(1)
  })

  it('opens a password-protected ZIP file with deflated entries', async () => {
    // Property: a single uploaded .zip is an archive too, and its deflated entries inflate.
    const source = dir.join('bundle')
    await mkdir(dir.join('bundle', 'docs'), { recursive: true })
    await writePseudoRandomFile(dir.join('bundle', 'big.bin'), 32 * MiB)
    const text = 'A line that compresses well.\n'.repeat(4000)
    await writeFile(dir.join('bundle', 'docs', 'long.txt'), text)
    const zip = dir.join('bundle.zip')
    await promisify(execFile)('zip', ['-q', '-r', '-9', zip, '.'], { cwd: source })
    const zipSize = (await stat(zip)).size

    const sender = await suite.open('/')
    await pickFiles(sender, zip)
    await sender.getByLabel('Password (optional)').fill('open sesame')
    const link = await uploadAndReadLink(sender)
    const id = idOf(link)

    const page = await suite.open(link)
    await page.getByLabel('Password', { exact: true }).fill('open sesame')
    await page.getByRole('button', { name: 'Unlock' }).click()
    const from = suite.proxy.answers.length
    const list = await openArchive(page)
    await list.getByRole('listitem').filter({ hasText: 'long.txt' }).waitFor()

    await page.getByRole('button', { name: 'View long.txt' }).click()
    const shown = page.getByRole('region', { name: 'Preview of docs/long.txt' })
    await shown.getByText('A line that compresses well.').first().waitFor()
    expect((await saveEntry(page, 'long.txt')).toString()).toBe(text)

    expect(downloadBytes(id, from)).toBeLessThan(zipSize / 4)
    expect(await downloadCount(id)).toBe(1)
  })

  it('says plainly when the read grant has lapsed, and opening again counts again', async () => {
    // An entry's data is always fetched anew (only headers come from cached records).
    const folder = dir.join('pair')
    await mkdir(folder, { recursive: true })
    await writeFile(dir.join('pair', 'a.txt'), 'first\n')
    await writePseudoRandomFile(dir.join('pair', 'big.bin'), 6 * MiB)
    await writeFile(dir.join('pair', 'z.txt'), 'last\n')
    const sender = await suite.open('/')
    await pickFolder(sender, folder)
    const link = await uploadAndReadLink(sender)
    const id = idOf(link)

    const page = await suite.open(link)
    await openArchive(page)
    await page.getByRole('button', { name: 'View z.txt' }).click()
    await page.getByText('last', { exact: true }).waitFor()
    await page.getByRole('button', { name: 'Close' }).click()

    // The server's clock passes the grant's hour.
    shift = 2 * HOUR
    await page.getByRole('button', { name: 'View a.txt' }).click()
    await page
      .getByRole('alert')
      .filter({ hasText: 'The time to view and save single files from this archive has run out.' })
      .waitFor()
    expect(await downloadCount(id)).toBe(1)

    await page.getByRole('button', { name: 'Open the archive again' }).click()
    await page.getByRole('button', { name: 'View a.txt' }).click()
    await page.getByText('first', { exact: true }).waitFor()
    expect(await downloadCount(id)).toBe(2)
  })
})
