import { afterEach, describe, expect, it } from 'vitest'

import { formatDate } from '../format-time'
import { showLocale } from '../i18n/locale.svelte'
import type { HistoryStatus } from '../state/history-store'
import { statusLine } from './status-line'

const EXPIRES = '2030-06-20T12:00:00.000Z'
const CHECKED = '2030-06-01T12:00:00.000Z'

afterEach(async () => {
  await showLocale('en')
})

describe('statusLine', () => {
  it('says what is left and when it expires, per kind', () => {
    const date = formatDate(EXPIRES)
    const live = (left: number, open?: boolean): HistoryStatus => ({
      state: 'available',
      left,
      expiresAt: EXPIRES,
      checkedAt: CHECKED,
      ...(open === undefined ? {} : { open }),
    })
    expect(statusLine({ kind: 'file', expiresAt: EXPIRES }, live(3))).toBe(
      `3 downloads left · Expires ${date}`,
    )
    expect(statusLine({ kind: 'note', expiresAt: EXPIRES }, live(1))).toBe(
      `1 view left · Expires ${date}`,
    )
    expect(statusLine({ kind: 'request', expiresAt: EXPIRES }, live(2, true))).toBe(
      `2 uploads left · Expires ${date}`,
    )
    expect(statusLine({ kind: 'request', expiresAt: EXPIRES }, live(0, false))).toBe(
      `0 uploads left · Expires ${date} · Closed to new uploads`,
    )
  })

  it("falls back to the item's own expiry when the status is unknown", () => {
    expect(statusLine({ kind: 'file', expiresAt: EXPIRES }, undefined)).toBe(
      `Status unknown · Expires ${formatDate(EXPIRES)}`,
    )
  })

  it('is one message in each language, punctuated by that language', async () => {
    await showLocale('ja')
    const status = { state: 'available', left: 3, expiresAt: EXPIRES, checkedAt: CHECKED } as const
    expect(statusLine({ kind: 'file', expiresAt: EXPIRES }, status)).toBe(
      `残り 3 回ダウンロード可能／有効期限：${formatDate(EXPIRES)}`,
    )
    await showLocale('de')
    expect(
      statusLine({ kind: 'request', expiresAt: EXPIRES }, { ...status, left: 1, open: false }),
    ).toBe(`Noch 1 Upload · Läuft ab am ${formatDate(EXPIRES)} · Für neue Uploads geschlossen`)
  })
})
