/**
 * The streamed-video part of `pnpm bench:web`: a long WebM (made by ffmpeg once and kept in the
 * temporary folder) is uploaded from Node, its link opened in the page through a counting proxy,
 * and Play pressed. Measured: from the press to the first frame presented, a seek to two thirds
 * until the first frame there, the bytes the browser took before the first frame, and the
 * download count afterwards (it must be one).
 */
import { stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { FIRST_FRAME, makeWebm, repeatWebm } from '../e2e/media.js'
import { shareFileFromNode } from '../e2e/node-client.js'
import { startProxy } from '../e2e/proxy.js'
import { evaluate, findByRole, type RawBrowser } from './cdp.js'
import { click } from './page-upload.js'

const MiB = 1024 * 1024
/** The clip the long video repeats: twenty seconds at 16 Mbit/s, about 40 MB. */
const CLIP = { seconds: 20, bitrate: 16_000_000 }

export interface MediaRun {
  fileBytes: number
  /** From the link's navigation to the Play button shown (page load, key derivation). */
  pageReadyMs: number
  /** From the press on Play to the first frame presented. */
  firstFrameMs: number
  /** From setting the time to two thirds to the first frame presented there. */
  seekMs: number
  bytesBeforeFirstFrame: number
  downloadCount: number
}

/** A WebM of at least `size` bytes, made once per size and kept in the temporary folder. */
export async function benchVideo(size: number): Promise<string> {
  const path = join(tmpdir(), `fileshare-bench-video-${Math.round(size / MiB)}mib.webm`)
  const made = await stat(path).catch(() => null)
  if (made && made.size >= size) return path
  const clip = join(tmpdir(), 'fileshare-bench-video-clip.webm')
  await makeWebm(clip, CLIP)
  const { size: clipSize } = await stat(clip)
  await repeatWebm(clip, Math.ceil(size / clipSize), path)
  return path
}

/** Seeks the video to two thirds; answers the milliseconds until a frame there is presented. */
const SEEK = `(async () => {
  const video = document.querySelector('video')
  const started = performance.now()
  const presented = new Promise((resolve) =>
    video.addEventListener('seeked', () => video.requestVideoFrameCallback(resolve), { once: true }),
  )
  video.currentTime = (video.duration * 2) / 3
  await presented
  return performance.now() - started
})()`

export async function measureMediaRun(
  browser: RawBrowser,
  serverUrl: string,
  path: string,
  timeoutMs: number,
): Promise<MediaRun> {
  const { size } = await stat(path)
  const sent = await shareFileFromNode(serverUrl, path, {
    name: 'bench.webm',
    type: 'video/webm',
    maxDownloads: 5,
  })
  const proxy = await startProxy(serverUrl)
  try {
    const link = new URL(sent.link)
    const opened = performance.now()
    const page = await browser.openPage(`${proxy.url}${link.pathname}${link.hash}`)
    const play = await findByRole(browser.cdp, page, 'button', 'Play here', timeoutMs)
    const pageReadyMs = performance.now() - opened
    const frame = evaluate<boolean>(browser.cdp, page, FIRST_FRAME)
    const before = proxy.answerBytes
    const pressed = performance.now()
    await click(browser.cdp, page, play)
    await frame
    const firstFrameMs = performance.now() - pressed
    const bytesBeforeFirstFrame = proxy.answerBytes - before
    const seekMs = await evaluate<number>(browser.cdp, page, SEEK)
    const info = (await (await fetch(`${serverUrl}/api/info/${sent.id}`)).json()) as {
      downloadCount: number
    }
    return {
      fileBytes: size,
      pageReadyMs,
      firstFrameMs,
      seekMs,
      bytesBeforeFirstFrame,
      downloadCount: info.downloadCount,
    }
  } finally {
    await proxy.close()
  }
}
