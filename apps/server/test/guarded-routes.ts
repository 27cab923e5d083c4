/**
 * The routes that check a password-derived token under the lockout (spec: Authentication,
 * Request tokens), each on a new item of its own, for the suites that guess on them. Items are
 * created on the first server; attempts go to the server they name, so a guess can reach any
 * instance of several sharing one database.
 */
import { randomBytes } from 'node:crypto'

import { PASSWORD_ALGO, toBase64Url } from '@fileshare/protocol'
import { expect } from 'vitest'

import { noteBody, randomToken, uploadHeaders, type TestServer } from './harness.js'
import { call, createRequest, nextIp } from './requests.suite.js'
import { json } from './uploads.suite.js'

/** One route guarded by a token: `attempt` presents a token from an IP and answers the response. */
export interface Guarded {
  right: string
  /** The route's path for this item. */
  path: string
  /** `via` picks the server the attempt goes to, modulo their number; the first by default. */
  attempt: (token: string | undefined, ip: string, via?: number) => Promise<Response>
  /** The status of a refused token (401 on upload and note routes, 404 on inbox routes). */
  refused: number
}

const headerOf = (name: string, token: string | undefined): Record<string, string> =>
  token === undefined ? {} : { [name]: token }

/** Each guarded route by name; `password: false` makes its item without a password. */
export function guardedRoutes(
  servers: TestServer[],
): Record<string, (password?: boolean) => Promise<Guarded>> {
  const urlOf = (via = 0) => servers[via % servers.length]!.url
  const creator = () => servers[0]!

  async function protectedUpload(password = true) {
    const size = 10
    const headers = uploadHeaders(
      size,
      password
        ? {
            'X-Has-Password': 'true',
            'X-Password-Salt': toBase64Url(randomBytes(16)),
            'X-Password-Algo': PASSWORD_ALGO,
            'X-Max-Downloads': '100',
          }
        : { 'X-Max-Downloads': '100' },
      'Content-Length',
    )
    const res = await fetch(`${creator().url}/api/upload`, {
      method: 'POST',
      headers: { ...headers, 'X-Forwarded-For': nextIp() },
      body: randomBytes(size),
    })
    const { id } = (await json(res)) as { id: string }
    return { id, right: headers['X-Auth-Token']! }
  }

  async function protectedNote(password = true) {
    const body = noteBody(
      password
        ? {
            hasPassword: true,
            passwordSalt: toBase64Url(randomBytes(16)),
            passwordAlgo: PASSWORD_ALGO,
          }
        : {},
    )
    const res = await call(creator(), 'POST', '/note', { body: { ...body, maxViews: 100 } })
    expect(res.status).toBe(201)
    return { id: res.body.id as string, right: body.authToken as string }
  }

  const post = (
    via: number | undefined,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ) =>
    fetch(`${urlOf(via)}/api${path}`, {
      method: 'POST',
      headers: {
        ...headers,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })

  return {
    'POST /api/password/:id': async (password) => {
      const up = await protectedUpload(password)
      return {
        right: up.right,
        path: `/api/password/${up.id}`,
        refused: 401,
        attempt: (token, ip, via) =>
          post(via, `/password/${up.id}`, {
            'X-Forwarded-For': ip,
            ...headerOf('X-Auth-Token', token),
          }),
      }
    },
    'GET /api/download/:id': async (password) => {
      const up = await protectedUpload(password)
      return {
        right: up.right,
        path: `/api/download/${up.id}`,
        refused: 401,
        attempt: (token, ip, via) =>
          fetch(`${urlOf(via)}/api/download/${up.id}`, {
            headers: { 'X-Forwarded-For': ip, ...headerOf('X-Auth-Token', token) },
          }),
      }
    },
    'POST /api/note/:id/password': async (password) => {
      const note = await protectedNote(password)
      return {
        right: note.right,
        path: `/api/note/${note.id}/password`,
        refused: 401,
        attempt: (token, ip, via) =>
          post(via, `/note/${note.id}/password`, { 'X-Forwarded-For': ip }, { authToken: token }),
      }
    },
    'POST /api/note/:id/view': async (password) => {
      const note = await protectedNote(password)
      return {
        right: note.right,
        path: `/api/note/${note.id}/view`,
        refused: 401,
        attempt: (token, ip, via) =>
          post(via, `/note/${note.id}/view`, { 'X-Forwarded-For': ip }, { authToken: token }),
      }
    },
    'GET /api/inbox/:id': async (password) => {
      const req = await createRequest(creator(), { hasPassword: password ?? true }, nextIp())
      return {
        right: req.inboxToken,
        path: `/api/inbox/${req.id}`,
        refused: 404,
        attempt: (token, ip, via) =>
          fetch(`${urlOf(via)}/api/inbox/${req.id}`, {
            headers: { 'X-Forwarded-For': ip, ...headerOf('X-Inbox-Token', token) },
          }),
      }
    },
  }
}

/**
 * `count` guesses at once from one IP, all wrong but one right token, spread over the servers;
 * answers the status of each, bodies read. The right one is sent last, so that it arrives among
 * the others rather than before them.
 */
export async function burstOfGuesses(route: Guarded, count: number, ip: string): Promise<number[]> {
  const tokens = Array.from({ length: count }, (_, i) =>
    i === count - 1 ? route.right : randomToken(),
  )
  return Promise.all(
    tokens.map(async (token, i) => {
      const res = await route.attempt(token, ip, i)
      await res.arrayBuffer()
      return res.status
    }),
  )
}
