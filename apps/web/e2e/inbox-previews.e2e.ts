/**
 * Streamed media and archives in the inbox: a request made on its page receives a WebM and a ZIP
 * (sent from Node); the requester plays the video with one press of Play and seeks, and opens the
 * archive and views a file inside it. Properties checked: each preview counts exactly one
 * download of its upload however many ranges it reads (under the inbox download's read grant),
 * and the archive's entries come by range, never the whole archive.
 */
import { execFile } from 'node:child_process'
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import { promisify } from 'node:util'

import {
  openInbox,
  openRequest,
  parseLink,
  sendToRequest,
  type InboxLink,
} from '@fileshare/protocol'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'

import { createRequestAndReadLinks } from './actions.js'
import { browserAvailable } from './browser.js'
import { writePseudoRandomFile } from './files.js'
import { makeWebm, repeatWebm, seekVideo, waitForPlayback } from './media.js'
import { nodeApi } from './node-client.js'
import { useSuite } from './suite.js'
import { useTempDir } from './temp-dir.js'

const MiB = 1024 * 1024

describe.runIf(browserAvailable)('media and archives in the inbox', () => {
  const suite = useSuite({ proxy: true })
  const dir = useTempDir('fileshare-e2e-inbox-previews-')

  /** Sends the file at `path` into the request of `uploadLink` from Node; answers its id. */
  async function sendFile(uploadLink: string, path: string, name: string, type: string) {
    const api = nodeApi(suite.url)
    const { link } = parseLink(uploadLink)
    if (link.kind !== 'request') throw new Error('not an upload link')
    const opened = await openRequest(api, link)
    const bytes = await readFile(path)
    const source = { size: bytes.length, stream: () => new Blob([bytes]).stream() }
    const sent = await sendToRequest(api, opened, source, {
      metadata: { archive: false, files: [{ name, type, size: bytes.length }] },
      fileCount: 1,
    })
    return sent.id
  }

  /** The server's download counts of the inbox's uploads, read afresh from Node. */
  async function downloadCounts(inboxLink: string): Promise<Record<string, number>> {
    const { link } = parseLink(inboxLink)
    const inbox = await openInbox(nodeApi(suite.url), link as InboxLink)
    return Object.fromEntries(inbox.entries.map((entry) => [entry.id, entry.downloadCount]))
  }

  /** Body bytes and requests the server answered for the inbox file `uid`. */
  function fileAnswers(uid: string): { requests: number; bytes: number } {
    const answers = suite.proxy.answers.filter((a) => a.request.endsWith(`/file/${uid}`))
    return { requests: answers.length, bytes: answers.reduce((sum, a) => sum + a.bytes, 0) }
  }

  /** The downloads left that the inbox page shows, entry by entry. */
  async function leftCounts(page: Page): Promise<number[]> {
    const texts = await page.getByText(/downloads? left$/).allTextContents()
    return texts.map((text) => Number(/\d+/.exec(text)?.[0]))
  }

  it('plays a video and looks inside an archive, counting one download each', async () => {
    const page = await suite.open('/request')
    const { uploadLink, inboxLink } = await createRequestAndReadLinks(page)

    const part = dir.join('part.webm')
    const clip = dir.join('clip.webm')
    await makeWebm(part, { seconds: 20, bitrate: 2_000_000 })
    await repeatWebm(part, 2, clip)
    const videoId = await sendFile(uploadLink, clip, 'clip.webm', 'video/webm')

    const folder = dir.join('bundle')
    await mkdir(folder, { recursive: true })
    await writePseudoRandomFile(dir.join('bundle', 'big.bin'), 16 * MiB)
    await writeFile(dir.join('bundle', 'readme.txt'), 'Hello from the inbox archive.\n')
    const zip = dir.join('bundle.zip')
    await promisify(execFile)('zip', ['-q', '-r', '-0', zip, '.'], { cwd: folder })
    const zipSize = (await stat(zip)).size
    const zipId = await sendFile(uploadLink, zip, 'bundle.zip', 'application/zip')

    const inbox = await suite.open(inboxLink)
    await inbox.getByRole('heading', { name: 'clip.webm' }).waitFor()
    const play = inbox.getByRole('button', { name: 'Play here' })
    await play.waitFor()
    expect(await downloadCounts(inboxLink)).toEqual({ [videoId]: 0, [zipId]: 0 })
    const leftBefore = await leftCounts(inbox)

    await play.click()
    await waitForPlayback(inbox)
    const target = await seekVideo(inbox, 2 / 3)
    await waitForPlayback(inbox, target)
    // The player read ranges from the start and from two thirds; only the press counted.
    expect(fileAnswers(videoId).requests).toBeGreaterThan(2)
    expect(await downloadCounts(inboxLink)).toEqual({ [videoId]: 1, [zipId]: 0 })

    await inbox.getByRole('heading', { name: 'Inside the archive' }).waitFor()
    await inbox.getByRole('button', { name: 'Open the archive' }).click()
    const list = inbox.getByRole('list', { name: 'Files in the archive' })
    await list.getByRole('listitem').filter({ hasText: 'big.bin' }).waitFor({ timeout: 60_000 })
    await inbox.getByRole('button', { name: 'View readme.txt' }).click()
    await inbox.getByText('Hello from the inbox archive.').waitFor()

    expect(fileAnswers(zipId).bytes).toBeLessThan(zipSize / 4)
    expect(await downloadCounts(inboxLink)).toEqual({ [videoId]: 1, [zipId]: 1 })
    // The page counted them too: each entry shows one download fewer left.
    expect(await leftCounts(inbox)).toEqual(leftBefore.map((left) => left - 1))
  })
})
