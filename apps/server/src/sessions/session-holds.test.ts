/**
 * The holds a session row names and the codec of the quota hold a streamed row keeps, rows written
 * before the hold took its shape included.
 */
import { describe, expect, it } from 'vitest'

import { decodeQuotaHold, encodeQuotaHold, holdsOfRow } from './session-holds.js'
import { encodeRequestInit } from './stored-contexts.js'

const HOLD = { clientHash: 'ab'.repeat(32), windowStart: Date.UTC(2030, 0, 1), bytes: 4096 }

describe('the quota hold a streamed session row keeps', () => {
  it('reads back what it wrote, and nothing while the quota is off', () => {
    expect(decodeQuotaHold(encodeQuotaHold(HOLD))).toEqual(HOLD)
    expect(encodeQuotaHold(null)).toBe('')
    expect(decodeQuotaHold('')).toBeNull()
  })

  // A session written before an upgrade resumes or ends after it with the hold it took.
  it('reads rows that name the window `start`', () => {
    const legacy = JSON.stringify({
      start: HOLD.windowStart,
      clientHash: HOLD.clientHash,
      bytes: 4096,
    })
    expect(decodeQuotaHold(legacy)).toEqual(HOLD)
  })

  it('refuses what is not a hold', () => {
    for (const text of [
      '{}',
      '{"clientHash":1,"windowStart":0,"bytes":1}',
      '{"clientHash":"a","windowStart":0.5,"bytes":1}',
    ]) {
      expect(() => decodeQuotaHold(text)).toThrow('malformed quota hold')
    }
  })
})

describe('the holds a session row names', () => {
  it('a slot of its request, a note slot when its context says so, and its quota', () => {
    const init = { uploadToken: null, salt: Buffer.alloc(32), size: 10, fileCount: 1 }
    const note = encodeRequestInit({ ...init, senderNote: true })
    const plain = encodeRequestInit({ ...init, senderNote: false })
    expect(holdsOfRow({ requestId: 'r', context: note, quota: encodeQuotaHold(HOLD) })).toEqual({
      quota: HOLD,
      slot: { requestId: 'r', note: true },
    })
    expect(holdsOfRow({ requestId: 'r', context: plain, quota: '' }).slot).toEqual({
      requestId: 'r',
      note: false,
    })
    expect(holdsOfRow({ requestId: null, context: '{}', quota: '' })).toEqual({
      quota: null,
      slot: null,
    })
  })
})
