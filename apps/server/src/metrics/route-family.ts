/**
 * The route family an HTTP request is counted under: a fixed, small set of names taken from the
 * path's first segments, never the path itself, which carries ids.
 * May touch: nothing (pure).
 */
import type { RouteFamily } from './recorder.js'

/** The family of each `/api/<segment>`; segments not listed count as `other`. */
const API_FAMILIES = new Map<string, RouteFamily>([
  ['upload', 'upload'],
  ['meta', 'upload'],
  ['download', 'download'],
  ['info', 'download'],
  ['exists', 'download'],
  ['password', 'download'],
  ['note', 'note'],
  ['request', 'request'],
  ['inbox', 'inbox'],
  ['config', 'system'],
  ['health', 'system'],
  ['ready', 'system'],
  ['quota', 'system'],
])

export function routeFamily(path: string): RouteFamily {
  if (path.startsWith('/api/')) {
    const end = path.indexOf('/', 5)
    return API_FAMILIES.get(path.slice(5, end === -1 ? undefined : end)) ?? 'other'
  }
  if (path === '/auth' || path.startsWith('/auth/')) return 'auth'
  if (path === '/api') return 'other'
  return 'web'
}
