/**
 * Every route of the spec's endpoint summary: patterns with `:id`/`:uid` parameters for the
 * server's router, and builders of concrete paths for clients (spec: Endpoints, Summary).
 */
import { CLI_CALLBACK_PARAM } from './auth.js'
import { CHUNK_INDEX_PARAM } from './uploads.js'

export const API_PREFIX = '/api'
export const AUTH_PREFIX = '/auth'

/**
 * Route patterns. `requestLimit` and `requestById` are both GET routes whose paths overlap:
 * a router that tries routes in order must have `requestLimit` first.
 */
export const ROUTES = {
  config: '/api/config',
  quota: '/api/quota',
  health: '/api/health',
  upload: '/api/upload',
  uploadInit: '/api/upload/init',
  uploadChunk: '/api/upload/:id/chunk',
  uploadFinalize: '/api/upload/:id/finalize',
  uploadWs: '/api/upload/ws',
  meta: '/api/meta/:id',
  info: '/api/info/:id',
  exists: '/api/exists/:id',
  download: '/api/download/:id',
  password: '/api/password/:id',
  uploadById: '/api/upload/:id',
  note: '/api/note',
  noteById: '/api/note/:id',
  noteView: '/api/note/:id/view',
  notePassword: '/api/note/:id/password',
  request: '/api/request',
  requestLimit: '/api/request/limit',
  requestById: '/api/request/:id',
  requestUploadWs: '/api/request/:id/upload/ws',
  requestUploadInit: '/api/request/:id/upload/init',
  requestUploadChunk: '/api/request/:id/upload/:uid/chunk',
  requestUpload: '/api/request/:id/upload/:uid',
  requestUploadFinalize: '/api/request/:id/upload/:uid/finalize',
  inbox: '/api/inbox/:id',
  inboxFile: '/api/inbox/:id/file/:uid',
  inboxClose: '/api/inbox/:id/close',
  authLogin: '/auth/login',
  authCallback: '/auth/callback',
  authLogout: '/auth/logout',
  authSession: '/auth/session',
  uploadStatus: '/api/upload/:id/status',
  requestUploadStatus: '/api/request/:id/upload/:uid/status',
} as const

export type RouteName = keyof typeof ROUTES
export type RoutePattern = (typeof ROUTES)[RouteName]

export type HttpMethod = 'GET' | 'POST' | 'DELETE'

export interface Endpoint {
  method: HttpMethod
  route: RouteName
  /** A GET that upgrades to a WebSocket. */
  websocket?: true
}

/** The endpoint summary of the spec, row by row, in its order. */
export const ENDPOINTS: readonly Endpoint[] = [
  { method: 'GET', route: 'config' },
  { method: 'GET', route: 'quota' },
  { method: 'GET', route: 'health' },
  { method: 'POST', route: 'upload' },
  { method: 'POST', route: 'uploadInit' },
  { method: 'POST', route: 'uploadChunk' },
  { method: 'POST', route: 'uploadFinalize' },
  { method: 'GET', route: 'uploadWs', websocket: true },
  { method: 'POST', route: 'meta' },
  { method: 'GET', route: 'info' },
  { method: 'GET', route: 'exists' },
  { method: 'GET', route: 'download' },
  { method: 'POST', route: 'password' },
  { method: 'DELETE', route: 'uploadById' },
  { method: 'POST', route: 'note' },
  { method: 'GET', route: 'noteById' },
  { method: 'POST', route: 'noteView' },
  { method: 'POST', route: 'notePassword' },
  { method: 'DELETE', route: 'noteById' },
  { method: 'POST', route: 'request' },
  { method: 'GET', route: 'requestLimit' },
  { method: 'GET', route: 'requestById' },
  { method: 'GET', route: 'requestUploadWs', websocket: true },
  { method: 'POST', route: 'requestUploadInit' },
  { method: 'POST', route: 'requestUploadChunk' },
  { method: 'DELETE', route: 'requestUpload' },
  { method: 'POST', route: 'requestUploadFinalize' },
  { method: 'GET', route: 'inbox' },
  { method: 'GET', route: 'inboxFile' },
  { method: 'DELETE', route: 'inboxFile' },
  { method: 'POST', route: 'inboxClose' },
  { method: 'DELETE', route: 'inbox' },
  { method: 'GET', route: 'authLogin' },
  { method: 'GET', route: 'authCallback' },
  { method: 'GET', route: 'authLogout' },
  { method: 'GET', route: 'authSession' },
]

/** Routes of ours beyond the spec's summary (docs/api.md): the status of an unfinished upload. */
export const OWN_ENDPOINTS: readonly Endpoint[] = [
  { method: 'GET', route: 'uploadStatus' },
  { method: 'GET', route: 'requestUploadStatus' },
]

/** Ids are encoded so that no value can add a path segment or a query. */
function segment(value: string): string {
  return encodeURIComponent(value)
}

/** Builders of concrete paths, one per route pattern, with the query parameters the spec names. */
export const PATHS = {
  config: () => ROUTES.config,
  quota: () => ROUTES.quota,
  health: () => ROUTES.health,
  upload: () => ROUTES.upload,
  uploadInit: () => ROUTES.uploadInit,
  uploadChunk: (id: string, index: number) =>
    `/api/upload/${segment(id)}/chunk?${CHUNK_INDEX_PARAM}=${index}`,
  uploadFinalize: (id: string) => `/api/upload/${segment(id)}/finalize`,
  uploadWs: () => ROUTES.uploadWs,
  meta: (id: string) => `/api/meta/${segment(id)}`,
  info: (id: string) => `/api/info/${segment(id)}`,
  exists: (id: string) => `/api/exists/${segment(id)}`,
  download: (id: string) => `/api/download/${segment(id)}`,
  password: (id: string) => `/api/password/${segment(id)}`,
  uploadById: (id: string) => `/api/upload/${segment(id)}`,
  note: () => ROUTES.note,
  noteById: (id: string) => `/api/note/${segment(id)}`,
  noteView: (id: string) => `/api/note/${segment(id)}/view`,
  notePassword: (id: string) => `/api/note/${segment(id)}/password`,
  request: () => ROUTES.request,
  requestLimit: () => ROUTES.requestLimit,
  requestById: (id: string) => `/api/request/${segment(id)}`,
  requestUploadWs: (id: string) => `/api/request/${segment(id)}/upload/ws`,
  requestUploadInit: (id: string) => `/api/request/${segment(id)}/upload/init`,
  requestUploadChunk: (id: string, uid: string, index: number) =>
    `/api/request/${segment(id)}/upload/${segment(uid)}/chunk?${CHUNK_INDEX_PARAM}=${index}`,
  requestUpload: (id: string, uid: string) => `/api/request/${segment(id)}/upload/${segment(uid)}`,
  requestUploadFinalize: (id: string, uid: string) =>
    `/api/request/${segment(id)}/upload/${segment(uid)}/finalize`,
  inbox: (id: string) => `/api/inbox/${segment(id)}`,
  inboxFile: (id: string, uid: string) => `/api/inbox/${segment(id)}/file/${segment(uid)}`,
  inboxClose: (id: string) => `/api/inbox/${segment(id)}/close`,
  authLogin: (cliCallback?: string) =>
    cliCallback === undefined
      ? ROUTES.authLogin
      : `${ROUTES.authLogin}?${CLI_CALLBACK_PARAM}=${encodeURIComponent(cliCallback)}`,
  authCallback: () => ROUTES.authCallback,
  authLogout: () => ROUTES.authLogout,
  authSession: () => ROUTES.authSession,
  uploadStatus: (id: string) => `/api/upload/${segment(id)}/status`,
  requestUploadStatus: (id: string, uid: string) =>
    `/api/request/${segment(id)}/upload/${segment(uid)}/status`,
} as const satisfies Record<RouteName, (...args: never[]) => string>
