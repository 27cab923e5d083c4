/**
 * Real media for the streaming tests and the benchmark: WebM video made by ffmpeg (a test
 * pattern with noise, so that its bitrate holds), and what a page's player shows of it, read by
 * waiting for the element's own states.
 */
import { execFile } from 'node:child_process'
import { rm, writeFile } from 'node:fs/promises'
import { promisify } from 'node:util'

import type { Page } from 'playwright-core'

const run = promisify(execFile)

export interface WebmOptions {
  seconds: number
  /** Video bitrate, bits per second. */
  bitrate: number
}

/** Encodes a VP8 WebM with a keyframe every two seconds (seeks land near their target). */
export async function makeWebm(path: string, options: WebmOptions): Promise<void> {
  const rate = String(options.bitrate)
  await run('ffmpeg', [
    ...['-v', 'error', '-y', '-f', 'lavfi'],
    ...['-i', `testsrc2=duration=${options.seconds}:size=320x240:rate=25,noise=alls=60:allf=t`],
    ...['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-g', '50'],
    ...['-b:v', rate, '-minrate', rate, '-maxrate', rate, '-bufsize', String(options.bitrate / 4)],
    path,
  ])
}

/** Joins `times` copies of a WebM into one longer file, copying its frames as they are. */
export async function repeatWebm(part: string, times: number, path: string): Promise<void> {
  const list = `${path}.list`
  await writeFile(list, `file '${part.replaceAll("'", "'\\''")}'\n`.repeat(times))
  try {
    await run('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-f',
      'concat',
      '-safe',
      '0',
      '-i',
      list,
      '-c',
      'copy',
      path,
    ])
  } finally {
    await rm(list, { force: true })
  }
}

/** A page expression: a promise that resolves when the page's video (once there) presents a frame. */
export const FIRST_FRAME = `new Promise((resolve) => {
  const watch = (video) => video.requestVideoFrameCallback(() => resolve(true))
  const found = document.querySelector('video')
  if (found) return watch(found)
  const observer = new MutationObserver(() => {
    const video = document.querySelector('video')
    if (!video) return
    observer.disconnect()
    watch(video)
  })
  observer.observe(document.body, { childList: true, subtree: true })
})`

/**
 * Calls `snapshot` in Node as soon as the page's video (once it appears) presents its first
 * frame: the state of the world at the first frame, not at some later poll. Call it before the
 * video starts.
 */
export function atFirstFrame<T>(page: Page, snapshot: () => T): Promise<T> {
  return page.evaluate(FIRST_FRAME).then(snapshot)
}

/** Waits until the page's video has a decoded frame and plays past `from` seconds. */
export async function waitForPlayback(page: Page, from = 0): Promise<void> {
  await page.waitForFunction(
    (after) => {
      const video = document.querySelector('video')
      return video !== null && video.readyState >= 2 && video.currentTime > after + 0.2
    },
    from,
    { timeout: 60_000 },
  )
}

/** Seeks the page's video to `fraction` of its duration; answers the time sought. */
export async function seekVideo(page: Page, fraction: number): Promise<number> {
  return page.evaluate(async (part) => {
    const video = document.querySelector('video')!
    const target = video.duration * part
    const seeked = new Promise((resolve) =>
      video.addEventListener('seeked', resolve, { once: true }),
    )
    video.currentTime = target
    await seeked
    return target
  }, fraction)
}
