/**
 * The pages in German (long words) and Japanese at phone width: each language chosen from the
 * browser's preference, every page (forms, the three "ready to share" results, About, the open
 * navigation menu) without sideways scrolling and without a button whose label is cut off, with
 * screenshots saved beside the others (`<tag>-<page>-…png`). And the language picker: it
 * switches the page in place, and the choice survives a reload.
 */
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'

import { choose, pickFiles } from './actions.js'
import { browserAvailable } from './browser.js'
import { writePseudoRandomFile } from './files.js'
import { shareFromNode } from './node-client.js'
import { captureAll } from './screenshots.js'
import { useSuite } from './suite.js'
import { useTempDir } from './temp-dir.js'

const PHONE = { width: 360, height: 780 }

/** What the tests look for on each page, in each language. */
const LANGUAGES = [
  {
    tag: 'de',
    browser: 'de-DE',
    uploadTitle: 'Dateien senden',
    chooseFiles: 'Dateien auswählen',
    download: 'Herunterladen',
    noteTitle: 'Notiz schreiben',
    reveal: /^Anzeigen/,
    inboxTitle: 'Posteingang',
    uploadSubmit: 'Hochladen',
    uploadDone: 'Ihre Dateien sind bereit zum Teilen',
    noteSubmit: 'Notiz erstellen',
    noteDone: 'Ihre Notiz ist bereit zum Teilen',
    requestSubmit: 'Anfrage erstellen',
    requestDone: 'Ihre Dateianfrage ist bereit',
    aboutLink: 'Über diesen Dienst',
    aboutTitle: 'Über diesen Dienst',
    menu: 'Menü',
  },
  {
    tag: 'ja',
    browser: 'ja-JP',
    uploadTitle: 'ファイルを送る',
    chooseFiles: 'ファイルを選択',
    download: 'ダウンロード',
    noteTitle: 'メモを書く',
    reveal: /^表示する/,
    inboxTitle: '受信箱',
    uploadSubmit: 'アップロード',
    uploadDone: 'ファイルを共有する準備ができました',
    noteSubmit: 'メモを作成',
    noteDone: 'メモを共有する準備ができました',
    requestSubmit: 'リクエストを作成',
    requestDone: 'ファイルリクエストの準備ができました',
    aboutLink: 'このサービスについて',
    aboutTitle: 'このサービスについて',
    menu: 'メニュー',
  },
] as const

interface Fit {
  scrollWidth: number
  clientWidth: number
  /** Buttons whose label is wider than the button. */
  clipped: string[]
  lang: string
}

function fit(page: Page): Promise<Fit> {
  return page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
    clipped: [...document.querySelectorAll('button')]
      .filter((b) => b.getClientRects().length > 0 && b.scrollWidth > b.clientWidth)
      .map((b) => `${b.textContent?.trim()} (${b.scrollWidth} > ${b.clientWidth})`),
    lang: document.documentElement.lang,
  }))
}

describe.runIf(browserAvailable)('the pages in German and Japanese', () => {
  const suite = useSuite()
  const dir = useTempDir()
  let inboxLink = ''

  beforeAll(async () => {
    await writePseudoRandomFile(dir.join('Jahresabschlussbericht-Entwurf.pdf'), 180_000)
    await writePseudoRandomFile(dir.join('holiday-photos.zip'), 1_200_000)
  })

  /** A file request with one upload in it, made in English; answers its inbox link. */
  async function inboxWithUpload(): Promise<string> {
    if (inboxLink) return inboxLink
    const page = await suite.open('/request')
    await page.getByRole('textbox', { name: 'Message to senders' }).fill('Bitte den Vertrag.')
    await page.getByRole('button', { name: 'Create request' }).click()
    const uploadLink = await page.getByRole('textbox', { name: /^Upload link/ }).inputValue()
    inboxLink = await page.getByRole('textbox', { name: /^Inbox link/ }).inputValue()
    const sender = await suite.open(uploadLink)
    await pickFiles(sender, dir.join('Jahresabschlussbericht-Entwurf.pdf'))
    await sender.getByRole('button', { name: 'Send', exact: true }).click()
    await sender.getByRole('heading', { name: 'Sent', level: 1 }).waitFor()
    return inboxLink
  }

  for (const language of LANGUAGES) {
    it(`shows every page in ${language.tag} at 360 px, results, About and menu included`, async () => {
      const context = await suite.context({ locale: language.browser, viewport: PHONE })
      const page = await context.newPage()

      /** Checks the page as it stands fits the phone in the language. */
      const fits = async (name: string) => {
        const found = await fit(page)
        expect(found.lang, name).toBe(language.tag)
        expect(found.scrollWidth, `${name} scrolls sideways`).toBeLessThanOrEqual(found.clientWidth)
        expect(found.clipped, `${name} cuts off button labels`).toEqual([])
      }
      /** Checks the page fits the phone in the language, then saves its screenshots. */
      const check = async (name: string) => {
        await fits(name)
        const captured = await captureAll(page, `${language.tag}-${name}`)
        expect(captured.overflowAt, `${name} scrolls sideways`).toEqual([])
      }

      await page.goto(suite.url)
      await page.getByRole('heading', { name: language.uploadTitle, level: 1 }).waitFor()
      await choose(page, language.chooseFiles, [
        dir.join('Jahresabschlussbericht-Entwurf.pdf'),
        dir.join('holiday-photos.zip'),
      ])
      await check('upload')
      await page.getByRole('button', { name: language.uploadSubmit, exact: true }).click()
      await page.getByRole('heading', { name: language.uploadDone }).waitFor()
      await check('upload-done')

      const sent = await shareFromNode(suite.url, {
        size: 2_500_000,
        seed: language.tag,
        name: 'Quartalsbericht-Übersicht-2026.pdf',
        type: 'application/pdf',
      })
      await page.goto(sent.link)
      await page.getByRole('button', { name: language.download, exact: true }).waitFor()
      await check('download')

      await page.goto(`${suite.url}/note`)
      await page.getByRole('heading', { name: language.noteTitle, level: 1 }).waitFor()
      await check('note-new')
      await page.locator('textarea').first().fill('Zugangsdaten für das Gäste-WLAN')
      await page.getByRole('button', { name: language.noteSubmit, exact: true }).click()
      await page.getByRole('heading', { name: language.noteDone }).waitFor()
      await check('note-done')

      await page.goto(`${suite.url}/request`)
      await page.locator('textarea').first().fill('Bitte die unterschriebenen Verträge.')
      await page.getByRole('button', { name: language.requestSubmit, exact: true }).click()
      await page.getByRole('heading', { name: language.requestDone }).waitFor()
      await check('request-done')

      const note = await suite.open('/note')
      await note.getByRole('textbox', { name: 'Note' }).fill('Wi-Fi: cafe-guest / 4711')
      await note.getByRole('combobox', { name: 'View limit' }).selectOption('2')
      await note.getByRole('button', { name: 'Create note' }).click()
      const noteLink = await note.getByRole('textbox', { name: 'Note link' }).inputValue()
      await page.goto(noteLink)
      await page.getByRole('button', { name: language.reveal }).waitFor()
      await check('note-view')

      await page.goto(await inboxWithUpload())
      await page.getByRole('heading', { name: language.inboxTitle, level: 1 }).waitFor()
      await page.getByRole('heading', { name: 'Jahresabschlussbericht-Entwurf.pdf' }).waitFor()
      await check('inbox')

      await page.getByRole('link', { name: language.aboutLink }).click()
      await page.getByRole('heading', { name: language.aboutTitle, level: 1 }).waitFor()
      await check('about')
      // At 360 px the navigation is a menu button; opened, its links must fit the phone too.
      const menu = page.getByRole('button', { name: language.menu })
      await menu.click()
      expect(await menu.getAttribute('aria-expanded')).toBe('true')
      await fits('menu')
    })
  }

  it('switches language with the picker without a reload, and keeps it after one', async () => {
    const page = await suite.open('/')
    await page.getByRole('heading', { name: 'Send files', level: 1 }).waitFor()
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en')
    // A reload would drop this mark.
    await page.evaluate(() => Object.assign(window, { sameDocument: true }))

    await page.getByRole('combobox', { name: 'Language' }).selectOption('de')
    await page.getByRole('heading', { name: 'Dateien senden', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Dateien auswählen' }).waitFor()
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de')
    expect(await page.evaluate(() => 'sameDocument' in window)).toBe(true)

    await page.reload()
    await page.getByRole('heading', { name: 'Dateien senden', level: 1 }).waitFor()
    expect(await page.evaluate(() => 'sameDocument' in window)).toBe(false)
    expect(await page.getByRole('combobox', { name: 'Sprache' }).inputValue()).toBe('de')
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de')

    await page.getByRole('combobox', { name: 'Sprache' }).selectOption('ja')
    await page.getByRole('heading', { name: 'ファイルを送る', level: 1 }).waitFor()
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('ja')
  })
})
