/**
 * The table of pages. Each page loads on demand so the upload page's first download stays small;
 * patterns are paths with `:name` segments (see router.svelte.ts).
 */
import type { Component } from 'svelte'

export interface PageProps {
  /** Values of the pattern's `:name` segments. */
  params: Record<string, string>
}

export type PageModule = { default: Component<PageProps> }

export interface RouteDef {
  pattern: string
  load: () => Promise<PageModule>
}

export const routes: readonly RouteDef[] = [
  { pattern: '/', load: () => import('./routes/Upload.svelte') },
  { pattern: '/d/:id', load: () => import('./routes/Download.svelte') },
  { pattern: '/note', load: () => import('./routes/NoteNew.svelte') },
  { pattern: '/n/:id', load: () => import('./routes/NoteView.svelte') },
  { pattern: '/request', load: () => import('./routes/RequestNew.svelte') },
  { pattern: '/r/:id', load: () => import('./routes/RequestUpload.svelte') },
  { pattern: '/i/:id', load: () => import('./routes/Inbox.svelte') },
  { pattern: '/history', load: () => import('./routes/History.svelte') },
]

export const notFoundRoute: RouteDef = {
  pattern: '*',
  load: () => import('./routes/NotFound.svelte'),
}
