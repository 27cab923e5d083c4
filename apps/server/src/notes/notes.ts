/**
 * Encrypted notes: creation with the spec's validation, public info, counted views, the password
 * check and deletion (spec: POST /api/note … DELETE /api/note/:id, Note states). Every route
 * checks in one order: a view or password body that is not a JSON object, 400 (a missing
 * `authToken` is a wrong token: spec Authentication 1); a malformed or unknown id, 404; expired,
 * then used up, 410 whatever the token (`GET /api/note/:id` tells anyone as much); a password
 * check of a note without one, 400; on a protected note the lockout of `note:<id>` for the IP, 429,
 * so the view route is no way around it; then the token, 401. Deletion skips the 410s: an owner
 * may delete a note that has expired or is used up.
 * May touch: table notes; tombstones and the lockout through their modules.
 */
import { randomUUID } from 'node:crypto'

import {
  canonicalBase64Url,
  ERROR_MESSAGES,
  NOTE_CONTENT_TYPES,
  NOTE_NONCE_BYTES,
  NOTE_OVERHEAD_BYTES,
  NOTE_SALT_BYTES,
  PASSWORD_ALGO,
  PASSWORD_SALT_BYTES,
  isOneOf,
  isUuid,
  type CreateNoteResponse,
  type NoteContentType,
  type NoteInfoResponse,
  type NoteViewResponse,
} from '@fileshare/protocol'
import { and, eq, gt, gte, lt, lte, or, sql } from 'drizzle-orm'

import type { Config } from '../config.js'
import type { Db } from '../db/client.js'
import { increment } from '../db/expressions.js'
import type { notes } from '../db/schema-pg.js'
import { HttpError } from '../http-error.js'
import { tokenUnderLockout, type Lockout } from '../limits/lockout.js'
import { infoTimes, passwordFields } from '../records/public-info.js'
import { hashToken, judgeToken, tokenBytes } from '../access/tokens.js'
import { takedownError, tombstoneColumns, type Tombstones } from '../records/tombstones.js'
import { decodeBase64Strict, invalid, isJsonObject } from '../validation.js'

export interface NotesDeps {
  config: Pick<Config, 'noteMaxSize' | 'noteExpireOptionsSec' | 'noteViewOptions'>
  db: Db
  lockout: Lockout
  tombstones: Tombstones
  now: () => number
}

const ID = sql.placeholder('id')
const NOW = sql.placeholder('now')

/** What view and password check read of a note: whether it can be read, and its token. */
function accessColumns(table: typeof notes) {
  const { maxViews, viewCount, hasPassword, authTokenHash, expiresAt } = table
  return { maxViews, viewCount, hasPassword, authTokenHash, expiresAt }
}

/** What the info answer and deletion read as well; the ciphertext comes from the view's UPDATE. */
function infoColumns(table: typeof notes) {
  const { id, contentType, salt, passwordSalt, ownerTokenHash, createdAt } = table
  const info = { id, contentType, salt, passwordSalt, ownerTokenHash, createdAt }
  return { ...accessColumns(table), ...info }
}

/** A note as stored at creation (the view count starts at 0). */
type NewNote = Omit<typeof notes.$inferInsert, 'viewCount'>

/**
 * The statements of the note routes, prepared once per service: building and preparing a query
 * on every request cost more than running it. View and password check read only the columns they
 * need (`access`): every column read, above all every blob, costs the driver a copy.
 */
function prepareNoteStatements(db: Db) {
  const { notes } = db.tables
  const { encryptedContent, nonce, viewCount, maxViews } = notes
  const param = <K extends keyof NewNote>(name: K) => sql.placeholder(name)
  return {
    insert: db.query
      .insert(notes)
      .values({
        id: param('id'),
        contentType: param('contentType'),
        encryptedContent: param('encryptedContent'),
        nonce: param('nonce'),
        salt: param('salt'),
        maxViews: param('maxViews'),
        viewCount: 0,
        hasPassword: param('hasPassword'),
        passwordSalt: param('passwordSalt'),
        passwordAlgo: param('passwordAlgo'),
        authTokenHash: param('authTokenHash'),
        ownerTokenHash: param('ownerTokenHash'),
        createdAt: param('createdAt'),
        expiresAt: param('expiresAt'),
      })
      .prepare('note_insert'),
    find: db.query
      .select(infoColumns(notes))
      .from(notes)
      .where(eq(notes.id, ID))
      .prepare('note_find'),
    access: db.query
      .select(accessColumns(notes))
      .from(notes)
      .where(eq(notes.id, ID))
      .prepare('note_access'),
    // One statement checks and counts, so concurrent views can never pass maxViews.
    countView: db.query
      .update(notes)
      .set({ viewCount: increment(viewCount) })
      .where(and(eq(notes.id, ID), lt(viewCount, maxViews), gt(notes.expiresAt, NOW)))
      .returning({ encryptedContent, nonce, viewCount, maxViews })
      .prepare('note_count_view'),
    delete: db.query
      .delete(notes)
      .where(eq(notes.id, ID))
      .returning({ id: notes.id })
      .prepare('note_delete'),
  }
}

/** A statement that reads one note by id. */
interface NoteLookup<R> {
  execute(values: { id: string }): Promise<R[]>
}

type NoteAccess = Pick<typeof notes.$inferSelect, keyof ReturnType<typeof accessColumns>>

/** The fields of `POST /api/note`; any other field is refused. */
const CREATE_FIELDS = [
  'encryptedContent',
  'nonce',
  'salt',
  'ownerToken',
  'authToken',
  'contentType',
  'maxViews',
  'expireSec',
  'hasPassword',
  'passwordSalt',
  'passwordAlgo',
] as const

const EQUALS_SIGN = 0x3d

function notFound(): HttpError {
  return new HttpError(404, ERROR_MESSAGES.noteNotFound)
}

/** The `authToken` of a view or password body; anything else in the body is ignored. */
function authTokenOf(body: unknown): string | undefined {
  if (!isJsonObject(body)) throw new HttpError(400, ERROR_MESSAGES.invalidRequest)
  return typeof body.authToken === 'string' ? body.authToken : undefined
}

export class NotesService {
  private readonly statements: ReturnType<typeof prepareNoteStatements>

  constructor(private readonly deps: NotesDeps) {
    this.statements = prepareNoteStatements(deps.db)
  }

  /**
   * Validates and stores a new note (spec: POST /api/note). A body that is not an object is a
   * 400; then content over the limit is a 413 before any other problem, since no fix of another
   * field makes it acceptable; every remaining problem is reported at once in `details`.
   */
  async create(body: unknown): Promise<CreateNoteResponse> {
    if (!isJsonObject(body)) throw invalid({ body: 'must be a JSON object' })
    const { config } = this.deps
    // A Map, so that a field named `__proto__` is reported like any other unknown field.
    const problems = new Map<string, string>()

    const content = this.decodeContent(body.encryptedContent, problems)
    for (const key of Object.keys(body)) {
      if (!isOneOf(key, CREATE_FIELDS)) problems.set(key.slice(0, 64), 'is not a known field')
    }
    const nonceSize = { minBytes: NOTE_NONCE_BYTES, maxBytes: NOTE_NONCE_BYTES }
    const nonce = decodeBase64Strict(body.nonce, nonceSize)
    if (!nonce) problems.set('nonce', `must be base64 of ${NOTE_NONCE_BYTES} bytes`)
    const salt = canonicalBase64Url(body.salt, [NOTE_SALT_BYTES])
    if (salt === null) problems.set('salt', `must be base64url of ${NOTE_SALT_BYTES} bytes`)
    const ownerToken = tokenBytes(typeof body.ownerToken === 'string' ? body.ownerToken : null)
    if (!ownerToken) problems.set('ownerToken', 'must be a base64url token')
    const authToken = tokenBytes(typeof body.authToken === 'string' ? body.authToken : null)
    if (!authToken) problems.set('authToken', 'must be a base64url token')
    const { contentType, maxViews, expireSec, hasPassword } = body
    const oneOf = (field: string, value: unknown, options: readonly unknown[]) => {
      if (!isOneOf(value, options)) problems.set(field, `must be one of ${options.join(', ')}`)
    }
    oneOf('contentType', contentType, NOTE_CONTENT_TYPES)
    oneOf('maxViews', maxViews, config.noteViewOptions)
    oneOf('expireSec', expireSec, config.noteExpireOptionsSec)

    if (typeof hasPassword !== 'boolean') problems.set('hasPassword', 'must be true or false')
    const passwordSalt = canonicalBase64Url(body.passwordSalt, [PASSWORD_SALT_BYTES])
    if (hasPassword === true) {
      if (passwordSalt === null) {
        problems.set('passwordSalt', `must be base64url of ${PASSWORD_SALT_BYTES} bytes`)
      }
      if (body.passwordAlgo !== PASSWORD_ALGO)
        problems.set('passwordAlgo', `must be ${PASSWORD_ALGO}`)
    } else if (hasPassword === false) {
      // Present exactly when hasPassword is true (protocol PasswordFields): a stray salt would
      // otherwise be shown to readers of a note that has no password.
      for (const field of ['passwordSalt', 'passwordAlgo']) {
        if (Object.hasOwn(body, field)) problems.set(field, 'must be absent without a password')
      }
    }

    // Every value below that is missing or of another type has left a problem.
    if (problems.size > 0) throw invalid(Object.fromEntries(problems))

    const now = this.deps.now()
    const expiresAt = now + (expireSec as number) * 1000
    const id = randomUUID()
    const note: NewNote = {
      id,
      contentType: contentType as NoteContentType,
      encryptedContent: content!,
      nonce: nonce!,
      // Stored in the one canonical spelling, so info answers the same bytes in one way.
      salt: salt!,
      maxViews: maxViews as number,
      hasPassword: hasPassword as boolean,
      passwordSalt: hasPassword ? passwordSalt! : null,
      passwordAlgo: hasPassword ? PASSWORD_ALGO : null,
      authTokenHash: hashToken(authToken!),
      ownerTokenHash: hashToken(ownerToken!),
      createdAt: now,
      expiresAt,
    }
    await this.statements.insert.execute(note)
    return { id, expiresAt: new Date(expiresAt).toISOString() }
  }

  /** Decodes `encryptedContent`; 413 over the limit, judged from the length before decoding. */
  private decodeContent(value: unknown, problems: Map<string, string>): Buffer | null {
    if (typeof value !== 'string') {
      problems.set('encryptedContent', 'must be base64')
      return null
    }
    // The largest decoded content (spec: Limits, NOTE_MAX_SIZE + 256 bytes).
    const max = this.deps.config.noteMaxSize + NOTE_OVERHEAD_BYTES
    let end = value.length
    while (end > 0 && value.charCodeAt(end - 1) === EQUALS_SIGN) end--
    if (Math.floor((end * 3) / 4) > max) throw new HttpError(413, ERROR_MESSAGES.noteTooLarge)
    const content = decodeBase64Strict(value, { minBytes: 1, maxBytes: max })
    if (!content) problems.set('encryptedContent', 'must be non-empty base64')
    return content
  }

  /** Public info, never the ciphertext (spec: GET /api/note/:id). */
  async info(id: string): Promise<NoteInfoResponse> {
    const row = await this.available(id, this.statements.find)
    return {
      id: row.id,
      contentType: row.contentType as NoteContentType,
      salt: row.salt,
      maxViews: row.maxViews,
      viewCount: row.viewCount,
      ...infoTimes(row),
      ...passwordFields(row),
    }
  }

  /** Counts a view (POST /api/note/:id/view) in one conditional UPDATE: never past maxViews. */
  async view(id: string, body: unknown, clientIp: string): Promise<NoteViewResponse> {
    const presented = authTokenOf(body)
    const row = await this.available(id, this.statements.access)
    const guard = { key: `note:${id}`, clientIp, hasPassword: row.hasPassword }
    const token = judgeToken(presented, row.authTokenHash)
    if (!(await tokenUnderLockout(this.deps.lockout, guard, token))) {
      throw new HttpError(401, ERROR_MESSAGES.invalidAuthToken)
    }
    const [counted] = await this.statements.countView.execute({ id, now: this.deps.now() })
    if (!counted) {
      // Lost a race: say why from the row as it is now.
      await this.available(id, this.statements.access)
      throw new HttpError(410, ERROR_MESSAGES.viewLimitReached)
    }
    // Node's encoder writes the same padded standard base64 as toBase64, natively.
    return {
      encryptedContent: counted.encryptedContent.toString('base64'),
      nonce: counted.nonce.toString('base64'),
      viewCount: counted.viewCount,
      maxViews: counted.maxViews,
    }
  }

  /** Checks a protected note's auth token without counting a view (POST /api/note/:id/password). */
  async checkPassword(id: string, body: unknown, clientIp: string): Promise<void> {
    const presented = authTokenOf(body)
    const row = await this.available(id, this.statements.access)
    if (!row.hasPassword) throw new HttpError(400, ERROR_MESSAGES.noteNotPasswordProtected)
    const guard = { key: `note:${id}`, clientIp, hasPassword: true }
    const token = judgeToken(presented, row.authTokenHash)
    if (!(await tokenUnderLockout(this.deps.lockout, guard, token))) {
      throw new HttpError(401, ERROR_MESSAGES.invalidPassword)
    }
  }

  /** Deletes a note or its tombstone (spec: DELETE /api/note/:id); a takedown's stays, 410. */
  async delete(id: string, ownerToken: string | undefined): Promise<void> {
    if (!isUuid(id)) throw notFound()
    const [row] = await this.statements.find.execute({ id })
    const note = {
      kind: 'note' as const,
      id,
      row,
      deleteRow: async () => (await this.statements.delete.execute({ id })).length > 0,
      messages: {
        notFound: ERROR_MESSAGES.noteNotFound,
        wrongOwner: ERROR_MESSAGES.invalidOwnerToken,
      },
    }
    if (!(await this.deps.tombstones.deleteAsOwner(note, ownerToken))) throw notFound()
  }

  /** Cleanup: deletes expired and used-up notes, leaving tombstones that answer 410. */
  async retireFinished(): Promise<number> {
    const { notes } = this.deps.db.tables
    const now = this.deps.now()
    return this.deps.db.transaction(async (tx) => {
      const removed = await tx
        .delete(notes)
        .where(or(lte(notes.expiresAt, now), gte(notes.viewCount, notes.maxViews)))
        .returning(tombstoneColumns(notes))
      await this.deps.tombstones.bury(tx, 'note', removed)
      return removed.length
    })
  }

  /**
   * The note as `statement` reads it if it can still be read: 404 unknown, 410 expired, then 410
   * used up, also when cleanup or the operator removed it.
   */
  private async available<R extends NoteAccess>(id: string, statement: NoteLookup<R>): Promise<R> {
    if (!isUuid(id)) throw notFound()
    const [row] = await statement.execute({ id })
    const now = this.deps.now()
    if (row) {
      if (row.expiresAt <= now) throw new HttpError(410, ERROR_MESSAGES.noteExpired)
      if (row.viewCount >= row.maxViews) throw new HttpError(410, ERROR_MESSAGES.viewLimitReached)
      return row
    }
    const removed = await this.deps.tombstones.find('note', id)
    if (!removed) throw notFound()
    const takedown = takedownError(removed)
    if (takedown) throw takedown
    // As for a note still stored: expired first, then used up.
    throw new HttpError(
      410,
      removed.expiresAt <= now ? ERROR_MESSAGES.noteExpired : ERROR_MESSAGES.viewLimitReached,
    )
  }
}
