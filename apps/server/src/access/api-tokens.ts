/**
 * Personal API tokens (docs/api.md, API tokens): a signed-in user's credential for scripts. A
 * token is `fst_` and 32 random bytes in canonical base64url; only the SHA-256 hash of the bytes
 * is stored, next to the OIDC subject, name, scopes and expiry. Every use reads the database, so a
 * revoked or expired token is refused at once by every instance.
 * May touch: table api_tokens.
 */
import { randomBytes, randomUUID } from 'node:crypto'

import {
  API_TOKEN_BYTES,
  API_TOKEN_MAX_DAYS,
  API_TOKEN_MESSAGES,
  API_TOKEN_NAME_MAX,
  API_TOKEN_PREFIX,
  API_TOKEN_SCOPES,
  API_TOKENS_PER_USER,
  fromBase64Url,
  toBase64Url,
  type ApiTokenInfo,
  type ApiTokenScope,
  type CreateApiTokenResponse,
} from '@fileshare/protocol'
import { and, count, desc, eq, getTableColumns, isNull, lte, or, type SQL } from 'drizzle-orm'

import { deleteRows, lockCount, type Db } from '../db/client.js'
import { HttpError } from '../http-error.js'
import { hashMatches, hashToken } from './tokens.js'
import { invalid, isJsonObject } from '../validation.js'

const DAY_MS = 86_400_000

/** How long an expired token stays listed, so its owner sees why a script stopped working. */
export const EXPIRED_TOKEN_GRACE_MS = 30 * DAY_MS

/** Last use is recorded at most this often per token. */
export const LAST_USE_RESOLUTION_MS = 60_000

/** First key of the PostgreSQL advisory lock that serialises one user's token creations. */
const CREATE_LOCK_CLASS = 0x61_70_69

/** A listed token with its owner, for the operator (`fileshare-admin tokens`). */
export interface OwnedApiTokenInfo extends ApiTokenInfo {
  subject: string
}

export class ApiTokens {
  constructor(private readonly deps: { db: Db; now: () => number }) {}

  /** Makes a token for `subject` from a `POST /api/tokens` body; the answer alone holds it. */
  async create(subject: string, body: unknown): Promise<CreateApiTokenResponse> {
    const { name, scopes, expiresInDays } = parseCreateBody(body)
    const { db, now } = this.deps
    const { apiTokens } = db.tables
    const bytes = randomBytes(API_TOKEN_BYTES)
    const createdAt = now()
    const row = {
      id: randomUUID(),
      subject,
      name,
      scopes: scopes.join(','),
      tokenHash: hashToken(bytes),
      createdAt,
      expiresAt: createdAt + expiresInDays * DAY_MS,
      lastUsedAt: null,
    }
    await db.transaction(async (tx) => {
      // Two creations of one user at once would both count the same rows.
      await lockCount(db, tx, CREATE_LOCK_CLASS, subject)
      const [held] = await tx
        .select({ n: count() })
        .from(apiTokens)
        .where(eq(apiTokens.subject, subject))
      if ((held?.n ?? 0) >= API_TOKENS_PER_USER) {
        throw new HttpError(409, API_TOKEN_MESSAGES.tooManyTokens)
      }
      await tx.insert(apiTokens).values(row)
    })
    return { ...describe(row), token: API_TOKEN_PREFIX + toBase64Url(bytes) }
  }

  /** The tokens of `subject`, newest first; never a token or its hash. */
  async list(subject: string): Promise<ApiTokenInfo[]> {
    return (await this.listAll(subject)).map(({ subject: _subject, ...info }) => info)
  }

  /** Every token with its owner (the operator's view), or only `subject`'s; newest first. */
  async listAll(subject?: string): Promise<OwnedApiTokenInfo[]> {
    const { apiTokens } = this.deps.db.tables
    const { tokenHash: _hash, ...listed } = getTableColumns(apiTokens)
    const rows = await this.deps.db.query
      .select(listed)
      .from(apiTokens)
      .where(subject === undefined ? undefined : eq(apiTokens.subject, subject))
      .orderBy(desc(apiTokens.createdAt), apiTokens.id)
    return rows.map((row) => ({ ...describe(row), subject: row.subject }))
  }

  /** Revokes one of `subject`'s tokens; 404 when it has none of that id. */
  async revoke(subject: string, id: string): Promise<void> {
    const { apiTokens } = this.deps.db.tables
    const gone = await this.deleteWhere(and(eq(apiTokens.id, id), eq(apiTokens.subject, subject)))
    if (gone === 0) throw new HttpError(404, API_TOKEN_MESSAGES.tokenNotFound)
  }

  /** Revokes any token by id (the operator); answers whether there was one. */
  async revokeAny(id: string): Promise<boolean> {
    return (await this.deleteWhere(eq(this.deps.db.tables.apiTokens.id, id))) > 0
  }

  /** Cleanup: deletes the tokens expired for longer than EXPIRED_TOKEN_GRACE_MS; how many went. */
  purgeExpired(): Promise<number> {
    const cutoff = this.deps.now() - EXPIRED_TOKEN_GRACE_MS
    return this.deleteWhere(lte(this.deps.db.tables.apiTokens.expiresAt, cutoff))
  }

  private async deleteWhere(condition: SQL | undefined): Promise<number> {
    return deleteRows(this.deps.db.query, this.deps.db.tables.apiTokens, condition)
  }

  /** The holder of a whole `fst_…` token, its use recorded; 401 alike for every invalid one. */
  async authenticate(presented: string) {
    const bytes = apiTokenBytes(presented)
    if (bytes === null) throw invalidToken()
    const { db, now } = this.deps
    const { apiTokens } = db.tables
    const hash = hashToken(bytes)
    const [row] = await db.query.select().from(apiTokens).where(eq(apiTokens.tokenHash, hash))
    // The lookup finds the row by hash; the stored hash is then confirmed in constant time.
    const time = now()
    if (row === undefined || !hashMatches(hash, row.tokenHash) || row.expiresAt <= time) {
      throw invalidToken()
    }
    const stale = time - LAST_USE_RESOLUTION_MS
    if (row.lastUsedAt === null || row.lastUsedAt <= stale) {
      // One conditional update, so instances racing on the same minute write it once.
      await db.query
        .update(apiTokens)
        .set({ lastUsedAt: time })
        .where(
          and(
            eq(apiTokens.id, row.id),
            or(isNull(apiTokens.lastUsedAt), lte(apiTokens.lastUsedAt, stale)),
          ),
        )
    }
    return { id: row.id, subject: row.subject, scopes: parseScopes(row.scopes) }
  }
}

/** The random bytes of a token: the prefix and exactly 32 bytes in canonical base64url. */
export function apiTokenBytes(presented: string): Uint8Array | null {
  if (!presented.startsWith(API_TOKEN_PREFIX)) return null
  try {
    return fromBase64Url(presented.slice(API_TOKEN_PREFIX.length), {
      canonical: true,
      bytes: API_TOKEN_BYTES,
    })
  } catch {
    return null
  }
}

function invalidToken(): HttpError {
  return new HttpError(401, API_TOKEN_MESSAGES.invalidToken)
}

type ApiTokenRow = Db['tables']['apiTokens']['$inferSelect']

function describe(row: Omit<ApiTokenRow, 'subject' | 'tokenHash'>): ApiTokenInfo {
  return {
    id: row.id,
    name: row.name,
    scopes: parseScopes(row.scopes),
    createdAt: new Date(row.createdAt).toISOString(),
    expiresAt: new Date(row.expiresAt).toISOString(),
    lastUsedAt: row.lastUsedAt === null ? null : new Date(row.lastUsedAt).toISOString(),
  }
}

function parseScopes(stored: string): ApiTokenScope[] {
  return stored
    .split(',')
    .filter((scope): scope is ApiTokenScope => API_TOKEN_SCOPES.includes(scope as ApiTokenScope))
}

const BODY_FIELDS = new Set(['name', 'scopes', 'expiresInDays'])

/** A `POST /api/tokens` body, or 400 naming each wrong field. */
export function parseCreateBody(fields: unknown) {
  if (!isJsonObject(fields)) throw invalid({ body: 'must be a JSON object' })
  const details: Record<string, string> = {}
  for (const key of Object.keys(fields)) {
    if (!BODY_FIELDS.has(key)) details[key] = 'unknown field'
  }
  const name = typeof fields.name === 'string' ? fields.name.trim() : ''
  // Control characters would garble the list in a terminal (fileshare-admin tokens).
  if (name === '' || [...name].length > API_TOKEN_NAME_MAX || /\p{Cc}/u.test(name)) {
    details.name = `must be 1 to ${API_TOKEN_NAME_MAX} printable characters`
  }
  const scopes = fields.scopes
  const validScopes =
    Array.isArray(scopes) &&
    scopes.length > 0 &&
    new Set(scopes).size === scopes.length &&
    scopes.every((s) => API_TOKEN_SCOPES.includes(s as ApiTokenScope))
  if (!validScopes) details.scopes = `must list some of ${API_TOKEN_SCOPES.join(', ')}, once each`
  const days = fields.expiresInDays as number
  if (!Number.isSafeInteger(days) || days < 1 || days > API_TOKEN_MAX_DAYS) {
    details.expiresInDays = `must be a whole number of days from 1 to ${API_TOKEN_MAX_DAYS}`
  }
  if (Object.keys(details).length > 0) throw invalid(details)
  // Stored in the protocol's order, so the list reads the same whatever order was sent.
  const ordered = API_TOKEN_SCOPES.filter((s) => (scopes as string[]).includes(s))
  return { name, scopes: ordered, expiresInDays: days }
}
