/**
 * Note routes (spec: POST /api/note, GET /api/note/:id, POST /api/note/:id/view, POST
 * /api/note/:id/password, DELETE /api/note/:id): thin adapters over NotesService. An id that is
 * not a UUID answers 404 before the body is read; on creation every 400 carries `details`.
 * May touch: the metrics registry; the rest through NotesService.
 */
import { ERROR_MESSAGES, RECEIVED_HEADERS } from '@fileshare/protocol'
import { Hono, type Context } from 'hono'

import type { AppEnv } from '../app-env.js'
import { recordNoteView } from '../metrics/recorder.js'
import type { NotesService } from '../notes/notes.js'
import { notJson, readJson } from './body.js'
import { noteId } from './route-ids.js'

export interface NotesRouteDeps {
  notes: NotesService
  ipOf: (c: Context<AppEnv>) => string
  /** Largest body of `POST /api/note`: the base64 of NOTE_MAX_SIZE + 256 bytes and the fields. */
  bodyLimit: number
  /** Throws 401 when note creation needs a login (OIDC_PROTECT_NOTES) and the caller has none. */
  requireLogin?: ((c: Context<AppEnv>) => Promise<void>) | undefined
}

/** A view or password body is `{ authToken }`, and a token is at most 128 characters. */
const TOKEN_BODY_LIMIT = 4 * 1024

/** A plain object, which the Node adapter passes to `writeHead` as is; a `Headers` it copies. */
const JSON_HEADERS = { [RECEIVED_HEADERS.contentType]: 'application/json' } as const

const OK_BODY = JSON.stringify({ ok: true })

/** A JSON answer, built past `c.json()` (see JSON_HEADERS). */
function json(body: string, status: 200 | 201): Response {
  return new Response(body, { status, headers: JSON_HEADERS })
}

/** The `{ authToken }` body of view and password check; its token is judged by the service. */
const tokenBody = (c: Context<AppEnv>) =>
  readJson(c, TOKEN_BODY_LIMIT, ERROR_MESSAGES.invalidRequest)

export function notesRoutes(deps: NotesRouteDeps): Hono<AppEnv> {
  const { notes, requireLogin } = deps
  const app = new Hono<AppEnv>()

  app.post('/note', async (c) => {
    if (requireLogin) await requireLogin(c)
    const body = await readJson(c, deps.bodyLimit, ERROR_MESSAGES.noteTooLarge, notJson)
    return json(JSON.stringify(await notes.create(body)), 201)
  })

  app.get('/note/:id', async (c) => json(JSON.stringify(await notes.info(noteId(c))), 200))

  app.post('/note/:id/view', async (c) => {
    const id = noteId(c)
    const body = await tokenBody(c)
    const viewed = await notes.view(id, body, deps.ipOf(c))
    recordNoteView()
    return json(JSON.stringify(viewed), 200)
  })

  app.post('/note/:id/password', async (c) => {
    const id = noteId(c)
    const body = await tokenBody(c)
    await notes.checkPassword(id, body, deps.ipOf(c))
    return json(OK_BODY, 200)
  })

  app.delete('/note/:id', async (c) => {
    await notes.delete(noteId(c), c.req.header(RECEIVED_HEADERS.ownerToken))
    return json(OK_BODY, 200)
  })

  return app
}
