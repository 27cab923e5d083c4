/**
 * The resumed-upload scenarios both upload pages must pass, written once and run against each
 * (the home page, a request's sender page), through a proxy that cuts every connection at given
 * byte counts: an upload whose connection drops resumes by itself and says so, over the
 * WebSocket or, where WebSockets are refused, over chunks from the server's `nextIndex`; a page
 * closed mid-upload offers to resume after a reload and continues with the same file, refusing a
 * different one. Each ends with what arrived checked byte for byte.
 */
import { basename } from 'node:path'

import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'

import { pickFiles } from './actions.js'
import { browserAvailable } from './browser.js'
import {
  CHUNKED_DROPS,
  expectResentFromNextIndex,
  PAGE_CLOSED_DROPS,
  useDroppingSuite,
  waitForResume,
  type DroppingSuite,
} from './dropping-suite.js'
import { sha256File, writePseudoRandomFile, type TempDir } from './files.js'

const MB = 1_000_000

/** Where one upload goes, made for a test: the page it starts on and how its end is read. */
export interface UploadTarget {
  /** The page's address on the suite. */
  path: string
  /** The localStorage key the page keeps the unfinished upload under. */
  storageKey: string
  /** The WebSocket path the upload asks to be upgraded. */
  socketPath: string
  /** Waits until the page says the upload is done. */
  sent(page: Page): Promise<void>
  /** SHA-256 of what arrived, read as its receiver reads it. */
  receivedHash(page: Page): Promise<string>
}

/** A page that uploads picked files and resumes them. */
export interface UploadPage {
  /** How the test names say it. */
  name: string
  /** The name of the button that starts the upload. */
  submit: string
  /** A new target on `run`; `onlySlot`: the upload is the only one it takes. */
  target(run: DroppingSuite, onlySlot: boolean): Promise<UploadTarget>
}

/** The upload state the page keeps, as much of it as the tests read. */
export interface StoredUpload {
  upload: { session: { id: string }; ownerToken?: string }
}

/** What the page keeps of its unfinished upload under `key`. */
export function storedState(page: Page, key: string): Promise<string | null> {
  return page.evaluate((at) => localStorage.getItem(at), key)
}

/**
 * Starts the upload of `source` on a new page of `target` (after `prepare`, which may fill in its
 * settings), closes that page once the proxy's first drop cut it off, and opens the page again,
 * which offers to resume; answers the new page and the state kept.
 */
export async function reloadMidUpload(
  run: DroppingSuite,
  uploads: UploadPage,
  target: UploadTarget,
  source: string,
  prepare: (page: Page) => Promise<void> = async () => {},
): Promise<{ page: Page; kept: StoredUpload }> {
  const first = await run.open(target.path)
  await pickFiles(first, source)
  await prepare(first)
  await first.getByRole('button', { name: uploads.submit, exact: true }).click()
  // The state is kept once the server names the upload; the page closes while it is cut off.
  await expect.poll(() => storedState(first, target.storageKey), { timeout: 30_000 }).not.toBeNull()
  await expect.poll(() => run.proxy.drops, { timeout: 60_000 }).toBe(1)
  const kept = JSON.parse((await storedState(first, target.storageKey))!) as StoredUpload
  const context = first.context()
  await first.close({ runBeforeUnload: false })
  await run.linkBack()
  const page = await context.newPage()
  await page.goto(new URL(target.path, run.url).href)
  await page.getByText(`An upload of ${basename(source)} did not finish.`).waitFor()
  return { page, kept }
}

/** A payload to write: its name in the test's folder and its size. */
export type Payload = [name: string, size: number]

/**
 * Writes `source` and `other` into `dir`, reloads mid-upload of `source` into a new target that
 * takes this one upload, and picks `other` on the reopened page; answers the target, the page and
 * the paths written.
 */
export async function reloadThenPickOther(
  run: DroppingSuite,
  uploads: UploadPage,
  dir: TempDir,
  payloads: { source: Payload; other: Payload },
) {
  const target = await uploads.target(run, true)
  const source = dir.join(payloads.source[0])
  const other = dir.join(payloads.other[0])
  await writePseudoRandomFile(source, payloads.source[1])
  await writePseudoRandomFile(other, payloads.other[1])
  const { page } = await reloadMidUpload(run, uploads, target, source)
  await pickFiles(page, other)
  return { target, page, source, other }
}

/** Registers the scenarios for `uploads`, its payloads written in `dir`. */
export function describeResumeScenarios(uploads: UploadPage, dir: TempDir): void {
  const submit = (page: Page) =>
    page.getByRole('button', { name: uploads.submit, exact: true }).click()

  describe.runIf(browserAvailable)(`${uploads.name}: an upload whose connection drops`, () => {
    // Client-to-server bytes: the page's requests are small beside the upload's.
    const run = useDroppingSuite({ dropAt: [8 * MB, 14 * MB] })

    it('resumes by itself, says where, and arrives byte for byte', async () => {
      const target = await uploads.target(run, false)
      const source = dir.join('dropped.bin')
      // Large enough that the upload goes on for a while after its last resume.
      await writePseudoRandomFile(source, 64 * MB + 5)
      const page = await run.open(target.path)
      await pickFiles(page, source)
      await submit(page)
      await waitForResume(page)
      await target.sent(page)
      expect(run.proxy.drops).toBe(2)
      // Done: nothing of the upload is kept in the browser any longer.
      expect(await storedState(page, target.storageKey)).toBeNull()
      expect(await target.receivedHash(page)).toBe(await sha256File(source))
    })
  })

  describe.runIf(browserAvailable)(`${uploads.name}: an upload that falls back to chunks`, () => {
    const run = useDroppingSuite(CHUNKED_DROPS)

    it('resumes from the status’s nextIndex after a drop and arrives byte for byte', async () => {
      const target = await uploads.target(run, false)
      const source = dir.join('chunked.bin')
      const size = 30 * MB + 1
      await writePseudoRandomFile(source, size)
      const { page, statuses } = await run.openRecording(target.path)
      await pickFiles(page, source)
      await submit(page)
      await waitForResume(page, run.linkBack)
      await target.sent(page)
      expect(run.proxy.drops).toBe(1)
      expect(run.recorder.upgrades).toEqual([target.socketPath])
      expectResentFromNextIndex(statuses, run.recorder.requests, size)
      expect(await storedState(page, target.storageKey)).toBeNull()
      expect(await target.receivedHash(page)).toBe(await sha256File(source))
    })
  })

  describe.runIf(browserAvailable)(`${uploads.name}: an upload whose page closed`, () => {
    const run = useDroppingSuite(PAGE_CLOSED_DROPS)

    it('continues after a reload with the same file and refuses another', async () => {
      // Where uploads are counted, the unfinished one holds the only slot while it waits.
      const { target, page, source } = await reloadThenPickOther(run, uploads, dir, {
        source: ['reloaded.bin', 20 * MB + 3],
        other: ['other.bin', 20 * MB + 3],
      })
      await page.getByRole('button', { name: 'Resume upload' }).click()
      await page
        .getByText('These are not the files of the unfinished upload', { exact: false })
        .waitFor()
      expect(await storedState(page, target.storageKey)).not.toBeNull()

      await page.getByRole('button', { name: 'Remove other.bin' }).click()
      await pickFiles(page, source)
      await page.getByRole('button', { name: 'Resume upload' }).click()
      await target.sent(page)
      expect(await storedState(page, target.storageKey)).toBeNull()
      expect(await target.receivedHash(page)).toBe(await sha256File(source))
    })
  })
}
