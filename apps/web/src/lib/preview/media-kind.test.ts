import { describe, expect, it } from 'vitest'

import { mediaKindOf, playableKindOf } from './media-kind'

describe('mediaKindOf', () => {
  it('plays WebM and MP4 video and any audio type', () => {
    expect(mediaKindOf('video/webm')).toBe('video')
    expect(mediaKindOf('Video/MP4')).toBe('video')
    expect(mediaKindOf('video/webm; codecs="vp8"')).toBe('video')
    expect(mediaKindOf('audio/ogg')).toBe('audio')
    expect(mediaKindOf('audio/mpeg')).toBe('audio')
  })

  it('offers only the download for other types', () => {
    for (const type of [
      'video/x-msvideo',
      'text/html',
      'image/svg+xml',
      'application/octet-stream',
      '',
    ]) {
      expect(mediaKindOf(type)).toBeNull()
    }
  })
})

describe('playableKindOf', () => {
  it('asks the browser, and offers only the download for what it cannot play', () => {
    const asked: string[] = []
    const canPlay = (kind: string, type: string) => {
      asked.push(`${kind} ${type}`)
      return type === 'video/webm' ? 'maybe' : ''
    }
    expect(playableKindOf('video/webm', canPlay)).toBe('video')
    expect(playableKindOf('video/mp4', canPlay)).toBeNull()
    expect(playableKindOf('text/plain', canPlay)).toBeNull()
    expect(asked).toEqual(['video video/webm', 'video video/mp4'])
  })
})
