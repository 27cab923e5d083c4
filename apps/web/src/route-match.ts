/** Pure routing logic: pattern matching and which clicks stay inside the app; imports nothing. */

/** Matches `path` against a pattern such as `/d/:id`; a trailing slash is ignored. */
export function matchPattern(pattern: string, path: string): Record<string, string> | null {
  const split = (p: string) => p.split('/').filter((s) => s.length > 0)
  const want = split(pattern)
  const have = split(path)
  if (want.length !== have.length) return null
  const params: Record<string, string> = {}
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!
    const h = have[i]!
    if (w.startsWith(':')) {
      let value: string
      try {
        value = decodeURIComponent(h)
      } catch {
        return null
      }
      params[w.slice(1)] = value
    } else if (w !== h) {
      return null
    }
  }
  return params
}

/**
 * The link to follow in-app for a click, or null when the browser should handle it: other
 * origins, new tabs, downloads, modified clicks, and `/api` or `/auth` addresses.
 */
export function inAppTarget(event: MouseEvent, origin: string): string | null {
  if (event.defaultPrevented || event.button !== 0) return null
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return null
  const anchor = (event.target as Element | null)?.closest?.('a')
  if (!anchor || anchor.hasAttribute('download')) return null
  if (anchor.target && anchor.target !== '_self') return null
  if (anchor.getAttribute('rel')?.split(/\s+/).includes('external')) return null
  const url = new URL(anchor.href, origin)
  if (url.origin !== origin) return null
  if (/^\/(api|auth)(\/|$)/.test(url.pathname)) return null
  return url.pathname + url.search + url.hash
}
