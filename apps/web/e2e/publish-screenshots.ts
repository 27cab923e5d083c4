/**
 * `pnpm --filter @fileshare/web screenshots`: copies a chosen few of the screenshots the e2e
 * suite saved (e2e/artifacts/screenshots/) into docs/screenshots/, which the README links.
 * Run the suite first; a missing screenshot is an error, so the README never points at nothing.
 */
import { copyFile, mkdir, stat } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

import { SCREENSHOT_DIR } from './screenshots.js'

const DOCS_DIR = fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url))

/** The published pictures: each page family once, both schemes, both widths, two languages. */
export const PUBLISHED = [
  'upload-selected-light-1280.png',
  'upload-done-dark-1280.png',
  'download-light-360.png',
  'note-shown-dark-360.png',
  'request-done-light-1280.png',
  'inbox-dark-360.png',
  'de-upload-light-360.png',
  'ja-inbox-light-360.png',
]

await mkdir(DOCS_DIR, { recursive: true })
for (const name of PUBLISHED) {
  const from = SCREENSHOT_DIR + name
  try {
    await stat(from)
  } catch {
    console.error(`missing ${from}: run pnpm --filter @fileshare/web test:e2e first`)
    process.exit(1)
  }
  await copyFile(from, DOCS_DIR + name)
  console.log(`docs/screenshots/${name}`)
}
