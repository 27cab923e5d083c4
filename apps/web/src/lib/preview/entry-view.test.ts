import { describe, expect, it } from 'vitest'

import {
  decodeText,
  entryViewOf,
  imageTypeOf,
  IMAGE_VIEW_LIMIT,
  TEXT_VIEW_LIMIT,
} from './entry-view'

describe('entryViewOf', () => {
  it('shows images and text up to their limits, and never SVG or HTML as an image', () => {
    expect(entryViewOf('a/photo.JPG', 1000)).toBe('image')
    expect(imageTypeOf('a/photo.JPG')).toBe('image/jpeg')
    expect(entryViewOf('huge.png', IMAGE_VIEW_LIMIT + 1)).toBeNull()
    expect(entryViewOf('notes/readme.md', 10)).toBe('text')
    expect(entryViewOf('log.txt', TEXT_VIEW_LIMIT + 1)).toBeNull()
    expect(entryViewOf('drawing.svg', 10)).toBeNull()
    expect(imageTypeOf('drawing.svg')).toBeNull()
    expect(imageTypeOf('page.html')).toBeNull()
    expect(entryViewOf('program.exe', 10)).toBeNull()
  })
})

describe('decodeText', () => {
  it('decodes UTF-8 and refuses binary bytes', () => {
    expect(decodeText(new TextEncoder().encode('grüße\n'))).toBe('grüße\n')
    expect(decodeText(new Uint8Array([0x68, 0, 0x69]))).toBeNull()
    expect(decodeText(new Uint8Array([0xff, 0xfe, 0x41]))).toBeNull()
  })
})
