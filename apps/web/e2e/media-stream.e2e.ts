/**
 * Audio and video streamed with seeking: a real WebM, uploaded from Node, is opened on the
 * download page with one press of Play; the player starts from the first records, seeks to two
 * thirds and plays on from there. Properties checked: the page fetched only part of the file
 * before the first frame (the service worker decrypts just the records a range touches), the
 * download counts exactly once however many ranges the player reads, and the same holds behind
 * a password.
 */
import { stat } from 'node:fs/promises'

import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'

import { browserAvailable } from './browser.js'
import { atFirstFrame, makeWebm, repeatWebm, seekVideo, waitForPlayback } from './media.js'
import { shareFileFromNode } from './node-client.js'
import { useSuite } from './suite.js'
import { useTempDir } from './temp-dir.js'

/** Two minutes at 2 Mbit/s, about 30 MB in thirty records: copies of a twenty-second clip. */
const CLIP = { seconds: 20, bitrate: 2_000_000 }
const COPIES = 6

describe.runIf(browserAvailable)('streamed audio and video', () => {
  const suite = useSuite({ proxy: true })
  const dir = useTempDir('fileshare-e2e-media-')
  let video: string | undefined

  async function webm(): Promise<string> {
    video ??= await (async () => {
      const part = dir.join('part.webm')
      const path = dir.join('clip.webm')
      await makeWebm(part, CLIP)
      await repeatWebm(part, COPIES, path)
      return path
    })()
    return video
  }

  async function downloadCount(id: string): Promise<number> {
    const response = await fetch(`${suite.server.url}/api/info/${id}`)
    const info = (await response.json()) as { downloadCount: number }
    return info.downloadCount
  }

  /** Plays the shared clip on `page`, seeks to two thirds and checks what was fetched. */
  async function playAndSeek(id: string, open: () => Promise<Page>) {
    const path = await webm()
    const { size } = await stat(path)
    const page = await open()
    const play = page.getByRole('button', { name: 'Play here' })
    await play.waitFor()
    expect(await downloadCount(id)).toBe(0)

    const before = suite.proxy.answerBytes
    const firstFrame = atFirstFrame(page, () => suite.proxy.answerBytes)
    await play.click()
    await waitForPlayback(page)
    const fetched = (await firstFrame) - before
    console.log(
      `first frame after ${(fetched / 1e6).toFixed(1)} MB of a ${(size / 1e6).toFixed(1)} MB file`,
    )
    expect(fetched).toBeLessThan(size / 3)

    const target = await seekVideo(page, 2 / 3)
    await waitForPlayback(page, target)
    // The player read ranges from the start and from two thirds; only the press counted.
    expect(await downloadCount(id)).toBe(1)
    const label = page.getByLabel('clip.webm, decrypted as it plays')
    expect(await label.evaluate((element) => (element as HTMLVideoElement).duration)).toBeCloseTo(
      CLIP.seconds * COPIES,
      0,
    )
    // The Download button stays one click away.
    await page.getByRole('button', { name: 'Download', exact: true }).waitFor()
  }

  it('plays a WebM from its first records, seeks to two thirds and counts one download', async () => {
    const sent = await shareFileFromNode(suite.url, await webm(), {
      name: 'clip.webm',
      type: 'video/webm',
      maxDownloads: 3,
    })
    await playAndSeek(sent.id, () => suite.open(sent.link))
  })

  it('plays behind a password the same way', async () => {
    const sent = await shareFileFromNode(suite.url, await webm(), {
      name: 'clip.webm',
      type: 'video/webm',
      maxDownloads: 3,
      password: 'correct horse battery',
    })
    await playAndSeek(sent.id, async () => {
      const page = await suite.open(sent.link)
      await page.getByLabel('Password', { exact: true }).fill('correct horse battery')
      await page.getByRole('button', { name: 'Unlock' }).click()
      return page
    })
  })
})
