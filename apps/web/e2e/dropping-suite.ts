/**
 * A server and a browser whose pages reach the server through a drop proxy cutting every
 * connection at given byte counts (@fileshare/testing/drop-proxy), for the suites of resumed
 * uploads. With `blockWebSockets`, a recording proxy refusing WebSocket upgrades stands in front
 * of the drop proxy, so that uploads fall back to chunked HTTP as behind such a proxy.
 */
import { freePort } from '@fileshare/testing'
import { encryptedSize, type UploadStatusResponse } from '@fileshare/protocol'
import { startDropProxy, type DropProxy } from '@fileshare/testing/drop-proxy'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, expect } from 'vitest'

import { downloadFromPage } from './actions.js'
import { downloadedFile } from './browser.js'
import { sha256File } from './files.js'
import { startProxy, type RecordingProxy } from './proxy.js'
import { useSuite, type Suite } from './suite.js'

/** How long the drop proxy refuses connections after a drop, unless told otherwise. */
export const DOWN_MS = 2000

export interface DroppingSuiteOptions {
  /** Client-to-server byte counts at which every open connection is cut. */
  dropAt: number[]
  /**
   * How long after a drop new connections are refused (default DOWN_MS); `Infinity` refuses them
   * until `linkBack()`.
   */
  downMs?: number
  /** Refuses every WebSocket upgrade in front of the drop proxy. */
  blockWebSockets?: boolean
  env?: Record<string, string>
}

export interface DroppingSuite {
  suite: Suite
  /** The drop proxy. */
  readonly proxy: DropProxy
  /** The recording proxy in front of it, with `blockWebSockets`. */
  readonly recorder: RecordingProxy
  /** The address pages use (BASE_URL). */
  readonly url: string
  /** A page in a fresh context, at `path` of `url`. */
  open(path?: string): Promise<Page>
  /** The same, with the upload status answers its uploads get (recordStatuses). */
  openRecording(path?: string): Promise<{ page: Page; statuses: UploadStatusResponse[] }>
  /** Downloads `link` in another context; answers the SHA-256 of the saved file. */
  downloadedHash(link: string): Promise<string>
  /** Has the drop proxy take connections again after a drop. */
  linkBack(): Promise<void>
}

/**
 * Waits until the page says its connection was lost (at once, while the link is away), then
 * (after `whileLost`, which may bring the link back) where the upload resumed.
 */
export async function waitForResume(
  page: Page,
  whileLost: () => Promise<void> = async () => {},
): Promise<void> {
  await page.getByText('Connection lost, resuming…').waitFor({ timeout: 60_000 })
  await whileLost()
  await page.getByText(/^Resumed at \d/).waitFor({ timeout: 60_000 })
}

/**
 * The upload status answers pages of `context` get (normal and request uploads), read on their
 * way to the page; a status asked while the link is away fails for the page as it would.
 */
export async function recordStatuses(context: BrowserContext): Promise<UploadStatusResponse[]> {
  const statuses: UploadStatusResponse[] = []
  await context.route(/\/upload\/[^/]+\/status$/, async (route) => {
    let response
    try {
      response = await route.fetch()
    } catch {
      await route.abort('connectionreset')
      return
    }
    statuses.push((await response.json()) as UploadStatusResponse)
    await route.fulfill({ response })
  })
  return statuses
}

/**
 * Checks that after its drop a chunked upload of `plainSize` bytes asked the server where to go
 * on (the last of `statuses`) and sent the chunks from that status's `nextIndex` (past 0) to its
 * last one, as the recording proxy saw them (`requests`, `METHOD path`).
 */
export function expectResentFromNextIndex(
  statuses: readonly UploadStatusResponse[],
  requests: readonly string[],
  plainSize: number,
): void {
  const lastIndex = Math.ceil(encryptedSize(plainSize) / CHUNK_SIZE) - 1
  const resumedAt = statuses.at(-1)
  expect(resumedAt?.transport).toBe('chunks')
  const nextIndex = resumedAt!.nextIndex!
  expect(nextIndex).toBeGreaterThan(0)
  const asked = requests.findLastIndex((line) => line.endsWith('/status'))
  const resent = requests
    .slice(asked + 1)
    .map((line) => /\/chunk\?index=(\d+)$/.exec(line)?.[1])
    .filter((index) => index !== undefined)
    .map(Number)
  expect(Math.min(...resent)).toBe(nextIndex)
  expect(Math.max(...resent)).toBe(lastIndex)
}

/** Chunks of the suites that fall back to chunked HTTP: many, so that a drop falls among them. */
export const CHUNK_SIZE = 2 ** 20

/**
 * A suite refusing WebSockets, cutting once after 12 MB, and away until `linkBack()`: longer than
 * a chunk's own retries however long those take, so that the upload asks the server where to go
 * on.
 */
export const CHUNKED_DROPS: DroppingSuiteOptions = {
  dropAt: [12_000_000],
  downMs: Infinity,
  blockWebSockets: true,
  env: { FILE_CHUNK_MAX_SIZE: String(CHUNK_SIZE) },
}

/**
 * A suite cutting once after 6 MB and away until the test links it back: a page closed while cut
 * off stays cut off however long closing it takes, so it never resumes and finishes first.
 */
export const PAGE_CLOSED_DROPS: DroppingSuiteOptions = {
  dropAt: [6_000_000],
  downMs: Number.POSITIVE_INFINITY,
}

export function useDroppingSuite(options: DroppingSuiteOptions): DroppingSuite {
  const downMs = options.downMs ?? DOWN_MS
  const handle: { proxy?: DropProxy; recorder?: RecordingProxy; url?: string } = {}
  // The proxies start first: BASE_URL (links, the WebSocket's Origin check) must be their address.
  const suite = useSuite(async () => {
    const port = await freePort()
    handle.proxy = await startDropProxy({ targetPort: port, dropAt: options.dropAt, downMs })
    handle.url = handle.proxy.url
    if (options.blockWebSockets) {
      handle.recorder = await startProxy(handle.proxy.url)
      handle.recorder.blockWebSockets = true
      handle.url = handle.recorder.url
    }
    return {
      port,
      env: { ...options.env, BASE_URL: handle.url },
      allowedOrigins: [handle.url],
    }
  })
  afterAll(async () => {
    await handle.recorder?.close()
    await handle.proxy?.close()
  })
  const required = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the ${what} has not started`)
    return value
  }
  return {
    suite,
    get proxy() {
      return required(handle.proxy, 'drop proxy')
    },
    get recorder() {
      return required(handle.recorder, 'recording proxy')
    },
    get url() {
      return required(handle.url, 'drop proxy')
    },
    async open(path = '/') {
      const context = await suite.context()
      const page = await context.newPage()
      await page.goto(new URL(path, this.url).href)
      return page
    },
    async openRecording(path = '/') {
      const context = await suite.context()
      const statuses = await recordStatuses(context)
      const page = await context.newPage()
      await page.goto(new URL(path, this.url).href)
      return { page, statuses }
    },
    async downloadedHash(link) {
      const context = await suite.context()
      const receiver = await context.newPage()
      await receiver.goto(link)
      const download = await downloadFromPage(receiver)
      return sha256File(await downloadedFile(download))
    },
    linkBack: async () => required(handle.proxy, 'drop proxy').restore(),
  }
}
