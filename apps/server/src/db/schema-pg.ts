/**
 * The schema of schema.ts for PostgreSQL: the same tables, columns and property names, so the
 * services are written once (schema-parity.test.ts keeps the two in step). Times and byte counts
 * are `bigint` read as JavaScript numbers; flags are `boolean`, blobs `bytea`.
 * May touch: nothing (pure).
 */
import {
  bigint,
  boolean,
  check,
  customType,
  index,
  integer,
  pgTable,
  primaryKey,
  serial,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core'
import { sql } from 'drizzle-orm'

/** Bytes, read and written as a Node Buffer (node-postgres's own mapping of `bytea`). */
const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' })

/** A time in milliseconds since the epoch, or a size in bytes: beyond 32 bits. */
const long = (name: string) => bigint(name, { mode: 'number' })

export const uploads = pgTable(
  'uploads',
  {
    id: text('id').primaryKey(),
    size: long('size').notNull(),
    salt: text('salt').notNull(),
    fileCount: integer('file_count').notNull(),
    maxDownloads: integer('max_downloads').notNull(),
    downloadCount: integer('download_count').notNull().default(0),
    hasPassword: boolean('has_password').notNull(),
    passwordSalt: text('password_salt'),
    passwordAlgo: text('password_algo'),
    authTokenHash: bytea('auth_token_hash').notNull(),
    ownerTokenHash: bytea('owner_token_hash').notNull(),
    encryptedMeta: text('encrypted_meta'),
    metaNonce: text('meta_nonce'),
    createdAt: long('created_at').notNull(),
    expiresAt: long('expires_at').notNull(),
    lastDownloadAt: long('last_download_at'),
  },
  (table) => [index('uploads_expires_at').on(table.expiresAt)],
)

export const notes = pgTable(
  'notes',
  {
    id: text('id').primaryKey(),
    contentType: text('content_type').notNull(),
    encryptedContent: bytea('encrypted_content').notNull(),
    nonce: bytea('nonce').notNull(),
    salt: text('salt').notNull(),
    maxViews: integer('max_views').notNull(),
    viewCount: integer('view_count').notNull().default(0),
    hasPassword: boolean('has_password').notNull(),
    passwordSalt: text('password_salt'),
    passwordAlgo: text('password_algo'),
    authTokenHash: bytea('auth_token_hash').notNull(),
    ownerTokenHash: bytea('owner_token_hash').notNull(),
    createdAt: long('created_at').notNull(),
    expiresAt: long('expires_at').notNull(),
  },
  (table) => [index('notes_expires_at').on(table.expiresAt)],
)

export const uploadQuota = pgTable(
  'upload_quota',
  {
    clientHash: text('client_hash').notNull(),
    windowStart: long('window_start').notNull(),
    bytes: long('bytes').notNull(),
    held: long('held').notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.clientHash, table.windowStart] })],
)

export const blobDeletions = pgTable('blob_deletions', {
  key: text('key').primaryKey(),
  attempts: integer('attempts').notNull().default(0),
  queuedAt: long('queued_at').notNull(),
  notBefore: long('not_before').notNull().default(0),
})

export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: bytea('value').notNull(),
})

export const fileRequests = pgTable(
  'file_requests',
  {
    id: text('id').primaryKey(),
    vault: bytea('vault').notNull(),
    vaultNonce: bytea('vault_nonce').notNull(),
    briefCiphertext: bytea('brief_ciphertext').notNull(),
    briefNonce: bytea('brief_nonce').notNull(),
    uploadTokenHash: bytea('upload_token_hash').notNull(),
    inboxTokenHash: bytea('inbox_token_hash').notNull(),
    inboxOwnerTokenHash: bytea('inbox_owner_token_hash').notNull(),
    hasPassword: boolean('has_password').notNull(),
    maxUploads: integer('max_uploads').notNull(),
    maxSize: long('max_size').notNull(),
    downloads: integer('downloads').notNull(),
    reservedUploads: integer('reserved_uploads').notNull().default(0),
    slotReservedAt: long('slot_reserved_at').notNull().default(0),
    usedUploads: integer('used_uploads').notNull().default(0),
    usedBytes: long('used_bytes').notNull().default(0),
    noteSlots: integer('note_slots').notNull().default(0),
    reservedNotes: integer('reserved_notes').notNull().default(0),
    usedNotes: integer('used_notes').notNull().default(0),
    closed: boolean('closed').notNull().default(false),
    createdAt: long('created_at').notNull(),
    closesAt: long('closes_at').notNull(),
    notifyEmail: text('notify_email'),
    notifyEmailsQueued: integer('notify_emails_queued').notNull().default(0),
    notifyWebhook: text('notify_webhook'),
    notifyWebhookSecret: bytea('notify_webhook_secret'),
  },
  (table) => [index('file_requests_closes_at').on(table.closesAt)],
)

export const requestUploads = pgTable(
  'request_uploads',
  {
    id: text('id').primaryKey(),
    requestId: text('request_id')
      .notNull()
      .references(() => fileRequests.id, { onDelete: 'cascade' }),
    size: long('size').notNull(),
    fileCount: integer('file_count').notNull(),
    salt: bytea('salt').notNull(),
    wrapEnc: bytea('wrap_enc').notNull(),
    wrapCiphertext: bytea('wrap_ciphertext').notNull(),
    encryptedMeta: bytea('encrypted_meta').notNull(),
    metaNonce: bytea('meta_nonce').notNull(),
    downloadCount: integer('download_count').notNull().default(0),
    maxDownloads: integer('max_downloads').notNull(),
    createdAt: long('created_at').notNull(),
    expiresAt: long('expires_at').notNull(),
    lastDownloadAt: long('last_download_at'),
  },
  (table) => [
    index('request_uploads_request_id').on(table.requestId),
    index('request_uploads_expires_at').on(table.expiresAt),
  ],
)

export const requestDailyCounts = pgTable(
  'request_daily_counts',
  {
    clientKey: text('client_key').notNull(),
    dayStart: long('day_start').notNull(),
    count: integer('count').notNull(),
  },
  (table) => [primaryKey({ columns: [table.clientKey, table.dayStart] })],
)

export const tombstones = pgTable(
  'tombstones',
  {
    id: text('id').primaryKey(),
    kind: text('kind').notNull(),
    ownerTokenHash: bytea('owner_token_hash').notNull(),
    expiresAt: long('expires_at').notNull(),
    removedAt: long('removed_at'),
    takedownReason: text('takedown_reason'),
  },
  (table) => [index('tombstones_expires_at').on(table.expiresAt)],
)

export const reports = pgTable(
  'reports',
  {
    id: serial('id').primaryKey(),
    targetId: text('target_id').notNull(),
    reason: text('reason').notNull(),
    key: text('key'),
    status: text('status').notNull().default('open'),
    createdAt: long('created_at').notNull(),
    closedAt: long('closed_at'),
    mailedAt: long('mailed_at'),
    mailLeaseUntil: long('mail_lease_until').notNull().default(0),
  },
  (table) => [index('reports_status').on(table.status)],
)

export const rateLimitWindows = pgTable(
  'rate_limit_windows',
  {
    clientHash: text('client_hash').primaryKey(),
    slot: long('slot').notNull(),
    counts: integer('counts').array().notNull(),
    allowed: boolean('allowed').notNull(),
  },
  (table) => [index('rate_limit_windows_slot').on(table.slot)],
)

export const lockouts = pgTable(
  'lockouts',
  {
    entryHash: text('entry_hash').primaryKey(),
    failures: integer('failures').notNull(),
    lockedUntil: long('locked_until').notNull(),
    expiresAt: long('expires_at').notNull(),
  },
  (table) => [index('lockouts_expires_at').on(table.expiresAt)],
)

/**
 * Every upload session under way, of either writer: the stream writer (every WebSocket upload,
 * and chunked uploads on SQLite) writes its bytes in order to one resumable blob writer and
 * records durable points here (`writerState`); the chunk writer (chunked HTTP on PostgreSQL)
 * stores chunks that any instance takes (`chunk_parts`, and `partsUpload`, the store's upload
 * they join). `bytesWritten` is durable in the blob store and `nextIndex` the chunk due next
 * (null for a WebSocket); `receivedBytes` counts every chunk recorded, early ones too, and grows
 * only by a conditional update. `context` is the JSON the record is made from at finalize (token
 * hashes as base64, never tokens); `quota` its quota hold (sessions/session-holds.ts), and a
 * `requestId` holds one of its request's slots while the row exists. `holder` is the instance
 * that holds the session, whose hold lapses when `heartbeatAt` grows old; `state` is `open`, or
 * `committing` once finalize claimed it.
 */
export const uploadSessions = pgTable(
  'upload_sessions',
  {
    id: text('id').primaryKey(),
    /** `upload` or `request`. */
    kind: text('kind').notNull(),
    requestId: text('request_id'),
    /** `ws` or `chunks`. */
    transport: text('transport').notNull(),
    state: text('state').notNull().default('open'),
    declaredSize: long('declared_size').notNull(),
    bytesWritten: long('bytes_written').notNull().default(0),
    receivedBytes: long('received_bytes').notNull().default(0),
    nextIndex: integer('next_index'),
    /** The stream writer's resumable writer state, or null for the chunk writer. */
    writerState: text('writer_state'),
    /** The store's upload that large chunks join as parts (S3: an UploadId), or null. */
    partsUpload: text('parts_upload'),
    context: text('context').notNull(),
    quota: text('quota').notNull().default(''),
    /** Whether its client asked to resume it; otherwise it ends with its connection or instance. */
    resumable: boolean('resumable').notNull().default(true),
    holder: text('holder'),
    heartbeatAt: long('heartbeat_at').notNull(),
    lastActivity: long('last_activity').notNull(),
    createdAt: long('created_at').notNull(),
  },
  (table) => [
    index('upload_sessions_last_activity').on(table.lastActivity),
    index('upload_sessions_request_id').on(table.requestId),
    index('upload_sessions_holder').on(table.holder),
  ],
)

/** One stored chunk of a chunk writer's session: its size and where the blob store keeps it. */
export const chunkParts = pgTable(
  'chunk_parts',
  {
    sessionId: text('session_id').notNull(),
    chunkIndex: integer('chunk_index').notNull(),
    size: long('size').notNull(),
    ref: text('ref').notNull(),
    etag: text('etag'),
  },
  (table) => [primaryKey({ columns: [table.sessionId, table.chunkIndex] })],
)

export const notifications = pgTable(
  'notifications',
  {
    id: text('id').primaryKey(),
    uploadId: text('upload_id').notNull(),
    requestId: text('request_id').notNull(),
    channel: text('channel').notNull(),
    target: text('target').notNull(),
    secret: bytea('secret'),
    size: long('size').notNull(),
    arrivedAt: long('arrived_at').notNull(),
    attempts: integer('attempts').notNull().default(0),
    notBefore: long('not_before').notNull().default(0),
    leaseUntil: long('lease_until').notNull().default(0),
  },
  (table) => [
    index('notifications_not_before').on(table.notBefore),
    index('notifications_upload_id').on(table.uploadId),
  ],
)

/** Personal API tokens, as in schema.ts. */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    subject: text('subject').notNull(),
    name: text('name').notNull(),
    scopes: text('scopes').notNull(),
    tokenHash: bytea('token_hash').notNull(),
    createdAt: long('created_at').notNull(),
    expiresAt: long('expires_at').notNull(),
    /** Updated at most once a minute, so a busy script does not write on every request. */
    lastUsedAt: long('last_used_at'),
  },
  (table) => [
    uniqueIndex('api_tokens_token_hash').on(table.tokenHash),
    index('api_tokens_subject').on(table.subject),
    // The cleanup job's purge of long-expired tokens filters on it.
    index('api_tokens_expires_at').on(table.expiresAt),
  ],
)

/** Read grants, as in schema.ts. */
export const readGrants = pgTable(
  'read_grants',
  {
    tokenHash: bytea('token_hash').primaryKey(),
    uploadId: text('upload_id').references(() => uploads.id, { onDelete: 'cascade' }),
    requestUploadId: text('request_upload_id').references(() => requestUploads.id, {
      onDelete: 'cascade',
    }),
    expiresAt: long('expires_at').notNull(),
  },
  (table) => [
    index('read_grants_upload_id').on(table.uploadId),
    index('read_grants_request_upload_id').on(table.requestUploadId),
    index('read_grants_expires_at').on(table.expiresAt),
    check(
      'read_grants_one_holder',
      sql`(${table.uploadId} is null) <> (${table.requestUploadId} is null)`,
    ),
  ],
)
