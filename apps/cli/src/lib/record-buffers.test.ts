/** Reused record buffers: only a view that is the whole of what was handed on may move or return. */
import { describe, expect, it } from 'vitest'

import {
  acquireBuffer,
  freeBufferCount,
  handOn,
  isHandedOn,
  RECORD_BUFFER_BYTES,
  releaseBuffer,
  takeHandedOn,
} from './record-buffers.js'

describe('record buffers', () => {
  it('hands out buffers of one record and its tag, and reuses a released one', () => {
    const buffer = acquireBuffer()
    expect(buffer.byteLength).toBe(RECORD_BUFFER_BYTES)
    const view = handOn(buffer, 1000)
    expect(view.buffer).toBe(buffer)
    expect(view.length).toBe(1000)
    const before = freeBufferCount()
    releaseBuffer(view)
    expect(freeBufferCount()).toBe(before + 1)
    expect(acquireBuffer()).toBe(buffer)
  })

  // Security: a buffer is never reused while another view may still read it.
  it('releases a buffer once only, and only through the exact view handed on', () => {
    const buffer = acquireBuffer()
    const view = handOn(buffer, 5000)
    const before = freeBufferCount()
    releaseBuffer(view.subarray(1)) // another offset
    releaseBuffer(view.subarray(0, 4999)) // another length
    expect(freeBufferCount()).toBe(before)
    releaseBuffer(view)
    releaseBuffer(view)
    releaseBuffer(new Uint8Array(buffer, 0, 5000))
    expect(freeBufferCount()).toBe(before + 1)
    acquireBuffer()
  })

  it('leaves foreign buffers alone', () => {
    const foreign = new Uint8Array(RECORD_BUFFER_BYTES)
    const before = freeBufferCount()
    expect(isHandedOn(foreign)).toBe(false)
    releaseBuffer(foreign)
    expect(takeHandedOn(foreign, 0)).toBeUndefined()
    expect(freeBufferCount()).toBe(before)
  })

  it('gives up a buffer to move only for the whole view with room to spare', () => {
    const buffer = acquireBuffer()
    const full = handOn(buffer, RECORD_BUFFER_BYTES)
    // No room for a tag after a full buffer, but room enough to open it in place.
    expect(takeHandedOn(full, 16)).toBeUndefined()
    expect(takeHandedOn(full.subarray(0, 10), 0)).toBeUndefined()
    expect(takeHandedOn(full, 0)).toBe(buffer)
    // Taken: no longer handed on, so neither taken nor released a second time.
    expect(takeHandedOn(full, 0)).toBeUndefined()
    expect(isHandedOn(full)).toBe(false)
  })
})
