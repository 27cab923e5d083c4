/**
 * The table of pages. Each page loads on demand so the upload page's first download stays small;
 * patterns are paths with `:name` segments (see route-match.ts).
 */
import type { Component } from 'svelte'

import type { MessageKey } from './lib/i18n/t'
import type { PageProps } from './page'
import { matchPattern } from './route-match'

export type PageModule = { default: Component<PageProps> }

export interface RouteDef {
  pattern: string
  /** The page's name in the document title ("Download · fileshare"). */
  title: MessageKey
  load: () => Promise<PageModule>
}

export const routes: readonly RouteDef[] = [
  { pattern: '/', title: 'upload.title', load: () => import('./routes/Upload.svelte') },
  { pattern: '/d/:id', title: 'download.title', load: () => import('./routes/Download.svelte') },
  { pattern: '/note', title: 'note.new.title', load: () => import('./routes/NoteNew.svelte') },
  { pattern: '/n/:id', title: 'note.view.title', load: () => import('./routes/NoteView.svelte') },
  {
    pattern: '/request',
    title: 'request.new.title',
    load: () => import('./routes/RequestNew.svelte'),
  },
  {
    pattern: '/r/:id',
    title: 'request.send.title',
    load: () => import('./routes/RequestUpload.svelte'),
  },
  { pattern: '/i/:id', title: 'inbox.title', load: () => import('./routes/Inbox.svelte') },
  { pattern: '/history', title: 'history.title', load: () => import('./routes/History.svelte') },
  { pattern: '/about', title: 'about.title', load: () => import('./routes/About.svelte') },
  {
    pattern: '/settings',
    title: 'tokens.title',
    load: () => import('./routes/Settings.svelte'),
  },
]

export const notFoundRoute: RouteDef = {
  pattern: '*',
  title: 'notFound.title',
  load: () => import('./routes/NotFound.svelte'),
}

export interface RouteMatch {
  route: RouteDef
  params: Record<string, string>
}

/** The first route matching `path`, or the not-found page. */
export function matchRoute(path: string, table: readonly RouteDef[] = routes): RouteMatch {
  for (const route of table) {
    const params = matchPattern(route.pattern, path)
    if (params) return { route, params }
  }
  return { route: notFoundRoute, params: {} }
}
