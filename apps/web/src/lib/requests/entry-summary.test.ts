import { encryptedSize } from '@fileshare/protocol'
import { afterEach, describe, expect, it } from 'vitest'

import { showLocale } from '../i18n/locale.svelte'
import { entrySummary } from './entry-summary'

afterEach(async () => {
  await showLocale('en')
})

function entry(plainBytes: number, files: number, archive: boolean) {
  return {
    size: encryptedSize(plainBytes),
    metadata: {
      archive,
      files: Array.from({ length: files }, (_, i) => ({ name: `f${i}`, size: 1, type: '' })),
    },
  }
}

describe('entrySummary', () => {
  it('names the file count and the size in one sentence', () => {
    expect(entrySummary(entry(1536, 1, false))).toBe('One file, 1.5\u00a0KiB')
    expect(entrySummary(entry(3 * 1024 ** 2, 3, true))).toBe('ZIP archive of 3 files, 3\u00a0MiB')
  })

  it('counts a folder’s files, not its folder entries', () => {
    const folder = entry(3 * 1024 ** 2, 3, true)
    folder.metadata.files.push(
      { name: 'photos/', size: 0, type: '' },
      { name: 'a/b/', size: 0, type: '' },
    )
    expect(entrySummary(folder)).toBe('ZIP archive of 3 files, 3\u00a0MiB')
  })

  it('lets each language order and punctuate it', async () => {
    await showLocale('ja')
    expect(entrySummary(entry(3 * 1024 ** 2, 3, true))).toBe(
      '3 ファイルの ZIP アーカイブ、3\u00a0MiB',
    )
    await showLocale('pl')
    expect(entrySummary(entry(1536, 2, true))).toBe('Archiwum ZIP z 2 plikami, 1,5\u00a0KiB')
  })
})
