/**
 * Which files the download page offers to play: WebM and MP4 video and any audio type, and of
 * those only what this browser says it can play (`canPlayType`). Everything else is download only.
 */

export type MediaKind = 'video' | 'audio'

const VIDEO_TYPES = new Set(['video/webm', 'video/mp4'])

/** The element a file of MIME type `type` would play in, before asking the browser. */
export function mediaKindOf(type: string): MediaKind | null {
  const essence = type.split(';')[0]!.trim().toLowerCase()
  if (VIDEO_TYPES.has(essence)) return 'video'
  if (/^audio\/[\w.+-]+$/.test(essence)) return 'audio'
  return null
}

/** The element to play `type` in, when this browser can play it; null: download only. */
export function playableKindOf(
  type: string,
  canPlayType: (kind: MediaKind, type: string) => string = browserCanPlay,
): MediaKind | null {
  const kind = mediaKindOf(type)
  return kind !== null && canPlayType(kind, type) !== '' ? kind : null
}

function browserCanPlay(kind: MediaKind, type: string): string {
  if (typeof document === 'undefined') return ''
  return document.createElement(kind).canPlayType(type)
}
