import { describe, expect, it } from 'vitest'
import { ENDPOINTS, OWN_ENDPOINTS, PATHS, ROUTES, type RouteName } from './routes.js'

/** The spec's endpoint summary, row by row. */
const SPEC_SUMMARY = [
  'GET /api/config',
  'GET /api/quota',
  'GET /api/health',
  'POST /api/upload',
  'POST /api/upload/init',
  'POST /api/upload/:id/chunk',
  'POST /api/upload/:id/finalize',
  'GET /api/upload/ws',
  'POST /api/meta/:id',
  'GET /api/info/:id',
  'GET /api/exists/:id',
  'GET /api/download/:id',
  'POST /api/password/:id',
  'DELETE /api/upload/:id',
  'POST /api/note',
  'GET /api/note/:id',
  'POST /api/note/:id/view',
  'POST /api/note/:id/password',
  'DELETE /api/note/:id',
  'POST /api/request',
  'GET /api/request/limit',
  'GET /api/request/:id',
  'GET /api/request/:id/upload/ws',
  'POST /api/request/:id/upload/init',
  'POST /api/request/:id/upload/:uid/chunk',
  'DELETE /api/request/:id/upload/:uid',
  'POST /api/request/:id/upload/:uid/finalize',
  'GET /api/inbox/:id',
  'GET /api/inbox/:id/file/:uid',
  'DELETE /api/inbox/:id/file/:uid',
  'POST /api/inbox/:id/close',
  'DELETE /api/inbox/:id',
  'GET /auth/login',
  'GET /auth/callback',
  'GET /auth/logout',
  'GET /auth/session',
]

const ID = '3f2b1c9e-8d7a-4b6c-9e5f-0a1b2c3d4e5f'
const UID = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'

/** Builds every route's path with sample arguments. */
function buildSample(route: RouteName): string {
  const build = PATHS[route] as (...args: unknown[]) => string
  return build(ID, route.startsWith('request') || route === 'inboxFile' ? UID : 4, 4)
}

function patternToRegExp(pattern: string): RegExp {
  return new RegExp(`^${pattern.replace(/:[a-z]+/g, '[^/?]+')}(\\?.*)?$`)
}

describe('routes', () => {
  it('lists exactly the endpoint summary of the spec', () => {
    expect(ENDPOINTS.map(({ method, route }) => `${method} ${ROUTES[route]}`)).toEqual(SPEC_SUMMARY)
  })

  it('lists our status routes apart from the spec summary', () => {
    expect(OWN_ENDPOINTS.map(({ method, route }) => `${method} ${ROUTES[route]}`)).toEqual([
      'GET /api/upload/:id/status',
      'GET /api/request/:id/upload/:uid/status',
    ])
    expect(PATHS.uploadStatus(ID)).toBe(`/api/upload/${ID}/status`)
    expect(PATHS.requestUploadStatus(ID, UID)).toBe(`/api/request/${ID}/upload/${UID}/status`)
  })

  it('marks the two WebSocket routes', () => {
    const sockets = ENDPOINTS.filter((endpoint) => endpoint.websocket === true)
    expect(sockets.map(({ route }) => ROUTES[route])).toEqual([
      '/api/upload/ws',
      '/api/request/:id/upload/ws',
    ])
  })

  it('builds a path matching its pattern for every route', () => {
    for (const route of Object.keys(ROUTES) as RouteName[]) {
      expect(buildSample(route)).toMatch(patternToRegExp(ROUTES[route]))
    }
  })

  it('builds the concrete paths clients call', () => {
    expect(PATHS.uploadChunk(ID, 0)).toBe(`/api/upload/${ID}/chunk?index=0`)
    expect(PATHS.requestUploadChunk(ID, UID, 12)).toBe(
      `/api/request/${ID}/upload/${UID}/chunk?index=12`,
    )
    expect(PATHS.requestUploadFinalize(ID, UID)).toBe(`/api/request/${ID}/upload/${UID}/finalize`)
    expect(PATHS.inboxFile(ID, UID)).toBe(`/api/inbox/${ID}/file/${UID}`)
    expect(PATHS.noteView(ID)).toBe(`/api/note/${ID}/view`)
    expect(PATHS.requestLimit()).toBe('/api/request/limit')
  })

  it('encodes ids so that they cannot add segments or a query', () => {
    expect(PATHS.info('../config')).toBe('/api/info/..%2Fconfig')
    expect(PATHS.download('x?y=1#z')).toBe('/api/download/x%3Fy%3D1%23z')
  })

  it('adds cli_callback to the login path only when given', () => {
    expect(PATHS.authLogin()).toBe('/auth/login')
    expect(PATHS.authLogin('http://localhost:8765/cb?a=1')).toBe(
      '/auth/login?cli_callback=http%3A%2F%2Flocalhost%3A8765%2Fcb%3Fa%3D1',
    )
  })
})
