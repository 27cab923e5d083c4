/**
 * File shares through the pages: upload a file and a folder, open the link in another browser
 * (a separate context: no shared storage), download and compare the bytes; the password flow;
 * the WebSocket transport and its HTTP fallback; the pages for used-up, deleted and broken links.
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { promisify } from 'node:util'

import type { Locator, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'

import { downloadFromPage, pickFiles, pickFolder, uploadAndReadLink } from './actions.js'
import { browserAvailable, downloadedFile } from './browser.js'
import { sha256File, writePseudoRandomFile } from './files.js'
import { useSuite } from './suite.js'
import { useTempDir } from './temp-dir.js'

const run = promisify(execFile)

/** The chunked-upload calls among the proxy's `METHOD path` lines: init, chunk N, finalize. */
function chunkedCalls(requests: string[]): string[] {
  return requests.flatMap((line) => {
    if (line === 'POST /api/upload/init') return ['init']
    const chunk = /^POST \/api\/upload\/[^/]+\/chunk\?index=(\d+)$/.exec(line)
    if (chunk) return [`chunk ${chunk[1]}`]
    if (/^POST \/api\/upload\/[^/]+\/finalize$/.test(line)) return ['finalize']
    return []
  })
}
const MB = 1_000_000

/** The record cipher workers running for the page (started by its transfer worker). */
function cipherWorkers(page: Page): number {
  return page.workers().filter((worker) => /\/cipher-worker-[\w-]+\.js$/.test(worker.url())).length
}

describe.runIf(browserAvailable)('file shares in the browser', () => {
  const suite = useSuite({ proxy: true })
  const dir = useTempDir()

  it('uploads a file that another browser downloads byte for byte', async () => {
    const source = dir.join('report.bin')
    await writePseudoRandomFile(source, 5 * MB + 17)
    const sender = await suite.open('/')
    await pickFiles(sender, source)
    await expect(
      sender.getByRole('listitem').filter({ hasText: 'report.bin' }).count(),
    ).resolves.toBe(1)
    const link = await uploadAndReadLink(sender)
    expect(link).toMatch(new RegExp(`^${suite.url}/d/[0-9a-f-]{36}#.+`))
    // Records were sealed in the cipher workers, which the pool drops when they fail.
    expect(cipherWorkers(sender)).toBeGreaterThan(0)

    const receiver = await suite.open(link)
    await receiver.getByRole('heading', { name: 'Download', level: 1 }).waitFor()
    await receiver.getByRole('listitem').filter({ hasText: 'report.bin' }).waitFor()
    await receiver.getByText('1 download left').waitFor()
    // The cipher workers start while the page shows the file, before the download is asked for.
    await expect.poll(() => cipherWorkers(receiver)).toBeGreaterThan(0)
    const download = await downloadFromPage(receiver)
    expect(download.suggestedFilename()).toBe('report.bin')
    expect(await sha256File(await downloadedFile(download))).toBe(await sha256File(source))
    expect(cipherWorkers(receiver)).toBeGreaterThan(0)
    await receiver.getByText('That was the last download; this link no longer works.').waitFor()

    // Used up: a fresh visit explains the link is gone instead of offering a download.
    const late = await suite.open(link)
    await late.getByRole('heading', { name: 'No longer available' }).waitFor()
  })

  it('uploads a file pasted on the page, as a screenshot is pasted', async () => {
    const sender = await suite.open('/')
    await sender.getByRole('button', { name: 'Choose files' }).waitFor()
    // What a paste of copied image data gives the page: a file in the clipboard event.
    const pasted = await sender.evaluate(() => {
      const bytes = new Uint8Array(70_000).map((_, i) => (i * 31) % 251)
      const data = new DataTransfer()
      data.items.add(new File([bytes], 'image.png', { type: 'image/png' }))
      const event = new ClipboardEvent('paste', {
        clipboardData: data,
        bubbles: true,
        cancelable: true,
      })
      document.body.dispatchEvent(event)
      return { taken: event.defaultPrevented }
    })
    expect(pasted.taken).toBe(true)
    await sender.getByRole('listitem').filter({ hasText: 'image.png' }).waitFor()
    const link = await uploadAndReadLink(sender)

    const receiver = await suite.open(link)
    await receiver.getByRole('listitem').filter({ hasText: 'image.png' }).waitFor()
    const download = await downloadFromPage(receiver)
    expect(download.suggestedFilename()).toBe('image.png')
    const expected = createHash('sha256')
      .update(Uint8Array.from({ length: 70_000 }, (_, i) => (i * 31) % 251))
      .digest('hex')
    expect(await sha256File(await downloadedFile(download))).toBe(expected)
  })

  it('stays on the page when a file is dropped outside the drop zone, and takes one dropped on it', async () => {
    const kept = dir.join('kept.txt')
    const stray = dir.join('stray.txt')
    await writePseudoRandomFile(kept, 1000)
    await writePseudoRandomFile(stray, 2000)
    const sender = await suite.open('/')
    await pickFiles(sender, kept)
    await sender.getByRole('listitem').filter({ hasText: 'kept.txt' }).waitFor()
    // A drag from the system, as Chromium's input layer makes it: trusted events, a real file.
    const cdp = await sender.context().newCDPSession(sender)
    const dropOn = async (target: Locator, path: string) => {
      const box = (await target.boundingBox())!
      const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 }
      const data = { items: [], files: [path], dragOperationsMask: 1 }
      for (const type of ['dragEnter', 'dragOver', 'drop'] as const) {
        await cdp.send('Input.dispatchDragEvent', { type, ...at, data })
      }
    }
    // Whether each drag event reached the window with its default (opening the file) cancelled:
    // a listener added now runs after the app's own on the window.
    await sender.evaluate(() => {
      const seen: string[] = []
      Object.assign(window, { dragSeen: seen })
      for (const type of ['dragover', 'drop']) {
        window.addEventListener(type, (event) => seen.push(`${type}:${event.defaultPrevented}`))
      }
    })
    const seen = () => sender.evaluate(() => (window as unknown as { dragSeen: string[] }).dragSeen)
    // Dropped on the heading, the browser would open the file in place of the app.
    await dropOn(sender.getByRole('heading', { name: 'Send files', level: 1 }), stray)
    expect(await seen()).toEqual(['dragover:true', 'dragover:true'])
    await dropOn(sender.getByRole('group', { name: 'Drop files or folders here' }), stray)
    await sender.getByRole('listitem').filter({ hasText: 'stray.txt' }).waitFor()
    expect((await seen()).at(-1)).toBe('drop:true')
    expect(sender.url()).toBe(`${suite.url}/`)
    expect(await sender.getByRole('listitem').filter({ hasText: 'kept.txt' }).count()).toBe(1)
  })

  it('uploads a folder as one ZIP archive that unpacks to the same files', async () => {
    const folder = dir.join('holiday')
    await writePseudoRandomFile(dir.join('holiday', 'beach.jpg'), 2 * MB + 5)
    await writePseudoRandomFile(dir.join('holiday', 'notes', 'day 1.txt'), 12_345)
    await mkdir(dir.join('holiday', 'notes', 'drafts'), { recursive: true })
    await writeFile(dir.join('holiday', 'notes', 'drafts', 'empty.txt'), '')

    const sender = await suite.open('/')
    await pickFolder(sender, folder)
    await sender.getByText('Several files or a folder are sent as one ZIP archive.').waitFor()
    const link = await uploadAndReadLink(sender)

    const receiver = await suite.open(link)
    await receiver.getByText('These files arrive as one ZIP archive.').waitFor()
    const download = await downloadFromPage(receiver)
    expect(download.suggestedFilename()).toMatch(/\.zip$/)
    const zip = await downloadedFile(download)
    await run('unzip', ['-tq', zip])
    const out = dir.join('unpacked')
    await run('unzip', ['-q', zip, '-d', out])
    for (const path of ['beach.jpg', 'notes/day 1.txt', 'notes/drafts/empty.txt']) {
      expect(await sha256File(dir.join('unpacked', 'holiday', path)), path).toBe(
        await sha256File(dir.join('holiday', path)),
      )
    }
  })

  it('asks for the password, explains a wrong one and downloads with the right one', async () => {
    const source = dir.join('secret.pdf')
    await writePseudoRandomFile(source, 300_000)
    const sender = await suite.open('/')
    await pickFiles(sender, source)
    await sender.getByLabel('Password (optional)').fill('correct horse battery')
    const link = await uploadAndReadLink(sender)

    const id = new URL(link).pathname.split('/').pop()!
    const receiver = await (await suite.context()).newPage()
    const infos: Promise<unknown>[] = []
    receiver.on('response', (response) => {
      if (new URL(response.url()).pathname !== `/api/info/${id}`) return
      // A later answer's body may be gone with the page: only the first one is awaited.
      const body = response.json()
      body.catch(() => undefined)
      infos.push(body)
    })
    await receiver.goto(link)
    await receiver.getByRole('heading', { name: 'Password required' }).waitFor()
    // Nothing about the files shows before the password: the names are encrypted with the key.
    expect(await receiver.getByText('secret.pdf').count()).toBe(0)
    // Security: the page is given no sealed names to test password guesses against offline.
    expect(infos).toHaveLength(1)
    const info = await infos[0]
    expect(info).toMatchObject({ id, hasPassword: true })
    expect(info).not.toHaveProperty('encryptedMeta')
    const field = receiver.getByLabel('Password', { exact: true })
    await field.fill('wrong horse')
    await receiver.getByRole('button', { name: 'Unlock' }).click()
    await receiver.getByRole('alert').filter({ hasText: 'Wrong password' }).waitFor()
    await field.fill('correct horse battery')
    // The names arrive with the password route's answer, once the password is proven.
    const check = `POST /api/password/${id}`
    const before = suite.proxy.requests.length
    suite.proxy.holdAnswers(new RegExp(`^${check}$`))
    try {
      await receiver.getByRole('button', { name: 'Unlock' }).click()
      // Argon2id runs first, slowly on a busy machine.
      await expect
        .poll(() => suite.proxy.requests.slice(before), { timeout: 30_000 })
        .toContain(check)
      await receiver.getByText('Checking the password').waitFor()
      expect(await receiver.getByText('secret.pdf').count()).toBe(0)
    } finally {
      suite.proxy.releaseAnswers()
    }
    await receiver.getByRole('heading', { name: 'Download', level: 1 }).waitFor()
    await receiver.getByRole('listitem').filter({ hasText: 'secret.pdf' }).waitFor()
    const download = await downloadFromPage(receiver)
    expect(await sha256File(await downloadedFile(download))).toBe(await sha256File(source))
  })

  it('uploads over the WebSocket when the server offers it', async () => {
    const source = dir.join('ws.bin')
    await writePseudoRandomFile(source, 3 * MB)
    const sender = await suite.open('/')
    const before = { upgrades: suite.proxy.upgrades.length, requests: suite.proxy.requests.length }
    await pickFiles(sender, source)
    const link = await uploadAndReadLink(sender)
    expect(suite.proxy.upgrades.slice(before.upgrades)).toEqual(['/api/upload/ws'])
    expect(chunkedCalls(suite.proxy.requests.slice(before.requests))).toEqual([])

    const receiver = await suite.open(link)
    const download = await downloadFromPage(receiver)
    expect(await sha256File(await downloadedFile(download))).toBe(await sha256File(source))
  })

  it('falls back to chunked HTTP when a proxy refuses the WebSocket, with the same result', async () => {
    const source = dir.join('fallback.bin')
    await writePseudoRandomFile(source, 25 * MB + 3)
    const sender = await suite.open('/')
    const before = { upgrades: suite.proxy.upgrades.length, requests: suite.proxy.requests.length }
    // The upgrade fails before `ready`, one of the spec's causes for the fallback.
    suite.proxy.blockWebSockets = true
    try {
      await pickFiles(sender, source)
      const link = await uploadAndReadLink(sender)
      expect(suite.proxy.upgrades.slice(before.upgrades)).toEqual(['/api/upload/ws'])
      const calls = chunkedCalls(suite.proxy.requests.slice(before.requests))
      // init, 25 MB in the server's 10 MB chunks, finalize.
      expect(calls.filter((call) => call === 'init')).toHaveLength(1)
      expect(calls.filter((call) => call.startsWith('chunk')).sort()).toEqual([
        'chunk 0',
        'chunk 1',
        'chunk 2',
      ])
      expect(calls.filter((call) => call === 'finalize')).toHaveLength(1)

      const receiver = await suite.open(link)
      const download = await downloadFromPage(receiver)
      expect(await sha256File(await downloadedFile(download))).toBe(await sha256File(source))
    } finally {
      suite.proxy.blockWebSockets = false
    }
  })

  it('shows the progress of a chunk over HTTP while its answer is still on the way', async () => {
    const source = dir.join('progress.bin')
    await writePseudoRandomFile(source, 3 * MB)
    const sender = await suite.open('/')
    const before = suite.proxy.requests.length
    suite.proxy.blockWebSockets = true
    // The chunk reaches the server whole; only the server's answer to it waits.
    suite.proxy.holdAnswers(/^POST \/api\/upload\/[^/]+\/chunk\?index=0$/)
    try {
      await pickFiles(sender, source)
      await sender.getByRole('button', { name: 'Upload', exact: true }).click()
      const bar = sender.locator('progress')
      await bar.waitFor()
      // Every byte of the one chunk has left (3 MB and one record tag per MiB) before any answer.
      await sender.waitForFunction(
        () => {
          const progress = document.querySelector('progress')
          return progress !== null && progress.value > 0 && progress.value === progress.max
        },
        undefined,
        { timeout: 30_000 },
      )
      const since = suite.proxy.requests.slice(before)
      expect(since.filter((line) => line.includes('/chunk?index=0'))).toHaveLength(1)
      expect(since.filter((line) => line.includes('/finalize'))).toEqual([])
    } finally {
      suite.proxy.releaseAnswers()
      suite.proxy.blockWebSockets = false
    }
    await sender.getByRole('textbox', { name: 'Share link' }).waitFor()
  })

  it('asks before a link or closing the tab would stop an upload under way', async () => {
    const source = dir.join('guarded.bin')
    await writePseudoRandomFile(source, 2 * MB)
    const sender = await suite.open('/')
    suite.proxy.blockWebSockets = true
    // The upload stays under way until the server's answer to its only chunk is let through.
    suite.proxy.holdAnswers(/^POST \/api\/upload\/[^/]+\/chunk\?index=0$/)
    const dialogs: string[] = []
    sender.on('dialog', (dialog) => {
      dialogs.push(`${dialog.type()}: ${dialog.message()}`)
      void dialog.dismiss()
    })
    try {
      await pickFiles(sender, source)
      await sender.getByRole('button', { name: 'Upload', exact: true }).click()
      await sender.locator('progress').waitFor()
      await sender.getByRole('link', { name: 'My uploads' }).click()
      await expect.poll(() => dialogs.length, { timeout: 10_000 }).toBe(1)
      expect(dialogs[0]).toBe(
        'confirm: Leaving now would stop or lose what is under way on this page. Leave anyway?',
      )
      expect(sender.url()).toBe(`${suite.url}/`)
      // Closing the tab asks too; dismissed, the page stays.
      await sender.close({ runBeforeUnload: true })
      await expect.poll(() => dialogs.length, { timeout: 10_000 }).toBe(2)
      expect(dialogs[1]).toMatch(/^beforeunload: /)
      expect(sender.isClosed()).toBe(false)
    } finally {
      suite.proxy.releaseAnswers()
      suite.proxy.blockWebSockets = false
    }
    await sender.getByRole('textbox', { name: 'Share link' }).waitFor()
    // Done, the page lets go: the same link moves at once.
    await sender.getByRole('link', { name: 'My uploads' }).click()
    await sender.getByRole('heading', { name: 'My uploads', level: 1 }).waitFor()
    expect(dialogs).toHaveLength(2)
  })

  it('uploads with the keyboard alone, every stop showing a focus ring', async () => {
    const source = dir.join('keyboard.txt')
    await writePseudoRandomFile(source, 10_000)
    const page = await suite.open('/')
    await page.getByRole('button', { name: 'Choose files' }).waitFor()

    /** Tabs until `target` has focus, checking every element passed on the way has a ring. */
    const tabTo = async (target: Locator) => {
      for (let stop = 0; stop < 30; stop++) {
        await page.keyboard.press('Tab')
        const ring = await page.evaluate(() => {
          const style = getComputedStyle(document.activeElement ?? document.body)
          const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0
          return outline || style.boxShadow !== 'none'
        })
        const label = await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 80))
        expect(ring, `no visible focus on ${label}`).toBe(true)
        if (await target.evaluate((element) => element === document.activeElement)) return
      }
      throw new Error('Tab never reached the control')
    }

    // The listener goes in before the first Tab: adding it is what turns on the browser's file
    // chooser interception, and a press that lands before that opens a dialog no test can see.
    const chooser = page.waitForEvent('filechooser', { timeout: 60_000 })
    chooser.catch(() => undefined) // a failure before the chooser opens is the one to report
    await tabTo(page.getByRole('button', { name: 'Choose files' }))
    await page.keyboard.press('Enter')
    await (await chooser).setFiles(source)
    await tabTo(page.getByRole('button', { name: 'Upload', exact: true }))
    await page.keyboard.press('Enter')
    await page.getByRole('textbox', { name: 'Share link' }).waitFor()
  })

  it('lists an upload in My uploads and deletes it from there after asking', async () => {
    const source = dir.join('listed.txt')
    await writePseudoRandomFile(source, 2000)
    const sender = await suite.open('/')
    await pickFiles(sender, source)
    const link = await uploadAndReadLink(sender)
    // The history lives in this browser context's IndexedDB.
    await sender.goto(`${suite.url}/history`)
    await sender.getByRole('heading', { name: 'My uploads', level: 1 }).waitFor()
    const remove = sender.getByRole('button', { name: 'Delete listed.txt' })
    await remove.click()
    const confirm = sender.getByRole('group', { name: /^Delete "listed\.txt" from the server\?/ })
    // Focus waits on Cancel, so a stray Enter deletes nothing.
    await expect
      .poll(() => sender.evaluate(() => document.activeElement?.textContent?.trim()))
      .toBe('Cancel')
    await confirm.getByRole('button', { name: 'Cancel' }).click()
    await remove.click()
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click()
    await sender.getByText('"listed.txt" was deleted.').waitFor()
    const receiver = await suite.open(link)
    await receiver.getByRole('heading', { name: 'Not found' }).waitFor()
  })

  it('shows a deleted upload as not found and a damaged link as broken', async () => {
    const source = dir.join('gone.txt')
    await writePseudoRandomFile(source, 1000)
    const sender = await suite.open('/')
    await pickFiles(sender, source)
    const link = await uploadAndReadLink(sender)
    // Deleting asks first: Cancel keeps the upload, the second button deletes it.
    await sender.getByRole('button', { name: 'Delete upload' }).click()
    const confirm = sender.getByRole('group', { name: /^Delete this upload now\?/ })
    await confirm.getByRole('button', { name: 'Cancel' }).click()
    await sender.getByRole('textbox', { name: 'Share link' }).waitFor()
    await sender.getByRole('button', { name: 'Delete upload' }).click()
    await confirm.getByRole('button', { name: 'Delete upload' }).click()
    await sender.getByRole('status').filter({ hasText: 'The upload was deleted.' }).waitFor()

    const receiver = await suite.open(link)
    await receiver.getByRole('heading', { name: 'Not found' }).waitFor()
    // Deleted from its result page, the upload leaves My uploads too.
    await sender.goto(`${suite.url}/history`)
    await sender.getByText('Nothing sent from this browser yet.').waitFor()

    // The key cut off: the page must say the link is damaged, not ask the server anything useful.
    const damaged = await suite.open(link.slice(0, link.indexOf('#') + 5))
    await damaged.getByRole('heading', { name: 'Broken link' }).waitFor()
  })
})
