/**
 * The database schema. Bearer tokens are stored only as SHA-256 hashes (access/tokens.ts), so a
 * stolen database opens nothing. Times are milliseconds since the epoch.
 * May touch: nothing (pure).
 */
import {
  blob,
  check,
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core'
import { sql } from 'drizzle-orm'

/** A finished file upload; it exists only once its blob is complete (spec: File upload states). */
export const uploads = sqliteTable(
  'uploads',
  {
    id: text('id').primaryKey(),
    size: integer('size').notNull(),
    salt: text('salt').notNull(),
    fileCount: integer('file_count').notNull(),
    maxDownloads: integer('max_downloads').notNull(),
    downloadCount: integer('download_count').notNull().default(0),
    hasPassword: integer('has_password', { mode: 'boolean' }).notNull(),
    passwordSalt: text('password_salt'),
    passwordAlgo: text('password_algo'),
    authTokenHash: blob('auth_token_hash', { mode: 'buffer' }).notNull(),
    ownerTokenHash: blob('owner_token_hash', { mode: 'buffer' }).notNull(),
    encryptedMeta: text('encrypted_meta'),
    metaNonce: text('meta_nonce'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    /** When the last download was counted; its blob outlives the record by a presigned URL's life. */
    lastDownloadAt: integer('last_download_at'),
  },
  (table) => [index('uploads_expires_at').on(table.expiresAt)],
)

export const notes = sqliteTable(
  'notes',
  {
    id: text('id').primaryKey(),
    contentType: text('content_type').notNull(),
    encryptedContent: blob('encrypted_content', { mode: 'buffer' }).notNull(),
    nonce: blob('nonce', { mode: 'buffer' }).notNull(),
    salt: text('salt').notNull(),
    maxViews: integer('max_views').notNull(),
    viewCount: integer('view_count').notNull().default(0),
    hasPassword: integer('has_password', { mode: 'boolean' }).notNull(),
    passwordSalt: text('password_salt'),
    passwordAlgo: text('password_algo'),
    authTokenHash: blob('auth_token_hash', { mode: 'buffer' }).notNull(),
    ownerTokenHash: blob('owner_token_hash', { mode: 'buffer' }).notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (table) => [index('notes_expires_at').on(table.expiresAt)],
)

/**
 * Bytes uploaded per client in a quota window, and bytes held by uploads that started in it and
 * still run; the client is an HMAC of its IP (limits/quota.ts).
 */
export const uploadQuota = sqliteTable(
  'upload_quota',
  {
    clientHash: text('client_hash').notNull(),
    windowStart: integer('window_start').notNull(),
    bytes: integer('bytes').notNull(),
    held: integer('held').notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.clientHash, table.windowStart] })],
)

/**
 * Blobs waiting for removal: those whose removal failed, and those held until a presigned URL
 * handed out for them has expired (`notBefore`). Each cleanup run removes the ones that are due.
 */
export const blobDeletions = sqliteTable('blob_deletions', {
  key: text('key').primaryKey(),
  attempts: integer('attempts').notNull().default(0),
  queuedAt: integer('queued_at').notNull(),
  /** Not removed before this time (milliseconds); 0 for at once. */
  notBefore: integer('not_before').notNull().default(0),
})

/** Server-wide secrets and settings generated at first start (for example the quota HMAC key). */
export const settings = sqliteTable('settings', {
  key: text('key').primaryKey(),
  value: blob('value', { mode: 'buffer' }).notNull(),
})

/**
 * A file request (spec: File request record). Slot counters live on the row, so reserving a slot
 * and checking the size is one conditional UPDATE; `reservedUploads` counts running sessions and
 * is reset at start, since sessions do not survive a restart.
 */
export const fileRequests = sqliteTable(
  'file_requests',
  {
    id: text('id').primaryKey(),
    vault: blob('vault', { mode: 'buffer' }).notNull(),
    vaultNonce: blob('vault_nonce', { mode: 'buffer' }).notNull(),
    briefCiphertext: blob('brief_ciphertext', { mode: 'buffer' }).notNull(),
    briefNonce: blob('brief_nonce', { mode: 'buffer' }).notNull(),
    uploadTokenHash: blob('upload_token_hash', { mode: 'buffer' }).notNull(),
    inboxTokenHash: blob('inbox_token_hash', { mode: 'buffer' }).notNull(),
    inboxOwnerTokenHash: blob('inbox_owner_token_hash', { mode: 'buffer' }).notNull(),
    hasPassword: integer('has_password', { mode: 'boolean' }).notNull(),
    maxUploads: integer('max_uploads').notNull(),
    maxSize: integer('max_size').notNull(),
    downloads: integer('downloads').notNull(),
    reservedUploads: integer('reserved_uploads').notNull().default(0),
    /**
     * When a slot was last reserved: the reset at start leaves a request reserved more recently
     * alone, since another instance may be between reserving and creating its session.
     */
    slotReservedAt: integer('slot_reserved_at').notNull().default(0),
    /** Finished uploads, deleted ones included (spec: GET /api/inbox/:id, usedUploads). */
    usedUploads: integer('used_uploads').notNull().default(0),
    usedBytes: integer('used_bytes').notNull().default(0),
    /**
     * Slots of `maxUploads` kept for senders' notes that go with files (`senderNotes`, half of
     * them; 0 otherwise), and how many of the reserved and used slots are such notes.
     */
    noteSlots: integer('note_slots').notNull().default(0),
    reservedNotes: integer('reserved_notes').notNull().default(0),
    usedNotes: integer('used_notes').notNull().default(0),
    closed: integer('closed', { mode: 'boolean' }).notNull().default(false),
    createdAt: integer('created_at').notNull(),
    closesAt: integer('closes_at').notNull(),
    /** Where to tell the creator of an upload (notify/); null for nobody. */
    notifyEmail: text('notify_email'),
    /** Notification mails queued for this request, held to NOTIFY_EMAIL_MAX_PER_REQUEST. */
    notifyEmailsQueued: integer('notify_emails_queued').notNull().default(0),
    notifyWebhook: text('notify_webhook'),
    /** The key webhook deliveries are signed with, given to the creator once. */
    notifyWebhookSecret: blob('notify_webhook_secret', { mode: 'buffer' }),
  },
  (table) => [index('file_requests_closes_at').on(table.closesAt)],
)

/** A finished upload inside a request (spec: Upload inside a request); its blob has its id. */
export const requestUploads = sqliteTable(
  'request_uploads',
  {
    id: text('id').primaryKey(),
    requestId: text('request_id')
      .notNull()
      .references(() => fileRequests.id, { onDelete: 'cascade' }),
    size: integer('size').notNull(),
    fileCount: integer('file_count').notNull(),
    salt: blob('salt', { mode: 'buffer' }).notNull(),
    wrapEnc: blob('wrap_enc', { mode: 'buffer' }).notNull(),
    wrapCiphertext: blob('wrap_ciphertext', { mode: 'buffer' }).notNull(),
    encryptedMeta: blob('encrypted_meta', { mode: 'buffer' }).notNull(),
    metaNonce: blob('meta_nonce', { mode: 'buffer' }).notNull(),
    downloadCount: integer('download_count').notNull().default(0),
    maxDownloads: integer('max_downloads').notNull(),
    createdAt: integer('created_at').notNull(),
    /** Arrival plus FILE_REQUEST_RETENTION_SEC. */
    expiresAt: integer('expires_at').notNull(),
    /** When the last download was counted, as on `uploads`. */
    lastDownloadAt: integer('last_download_at'),
  },
  (table) => [
    index('request_uploads_request_id').on(table.requestId),
    index('request_uploads_expires_at').on(table.expiresAt),
  ],
)

/**
 * Requests created per client and UTC day (FILE_REQUEST_DAILY_LIMIT), kept here so a restart
 * does not reset them. The client is `user:<sub>` or `ip:` and an HMAC of the IP (limits/quota.ts).
 */
export const requestDailyCounts = sqliteTable(
  'request_daily_counts',
  {
    clientKey: text('client_key').notNull(),
    dayStart: integer('day_start').notNull(),
    count: integer('count').notNull(),
  },
  (table) => [primaryKey({ columns: [table.clientKey, table.dayStart] })],
)

/**
 * What is left of an upload or note the cleanup job removed for having expired or used up its
 * downloads or views: its id still answers 410 until 30 days past its expiry
 * (records/tombstones.ts). The owner token's hash lets the owner delete it for good.
 */
export const tombstones = sqliteTable(
  'tombstones',
  {
    id: text('id').primaryKey(),
    /** `upload` or `note`. */
    kind: text('kind').notNull(),
    ownerTokenHash: blob('owner_token_hash', { mode: 'buffer' }).notNull(),
    /** The item's own expiry; a used-up item may not have reached it yet. */
    expiresAt: integer('expires_at').notNull(),
    /** When the operator took the item down (`fileshare-admin rm`); null when it expired. */
    removedAt: integer('removed_at'),
    /** The operator's words on a takedown, shown with its 410; null when none were given. */
    takedownReason: text('takedown_reason'),
  },
  (table) => [index('tombstones_expires_at').on(table.expiresAt)],
)

/**
 * Abuse reports filed through `POST /api/report/:id` and handled with `fileshare-admin reports`.
 * `key` is the link secret, only when the reporter chose to include it; nothing of the reporter
 * (no IP, no login) is kept.
 */
export const reports = sqliteTable(
  'reports',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    /** The reported upload, note or request id, whether or not it exists. */
    targetId: text('target_id').notNull(),
    reason: text('reason').notNull(),
    key: text('key'),
    /** `open`, `resolved` or `dismissed`. */
    status: text('status').notNull().default('open'),
    createdAt: integer('created_at').notNull(),
    /** When the operator resolved or dismissed it. */
    closedAt: integer('closed_at'),
    /** When a digest to ABUSE_EMAIL that named it was sent; null until then. */
    mailedAt: integer('mailed_at'),
    /** Until when an instance holds it for the digest it is sending. */
    mailLeaseUntil: integer('mail_lease_until').notNull().default(0),
  },
  (table) => [index('reports_status').on(table.status)],
)

/**
 * The rate-limit window of each client on PostgreSQL, shared by every instance
 * (limits/shared-rate-limiter.ts): the newest slot and the requests counted per slot,
 * newest first. The client is the daily HMAC of its IP. SQLite serves one instance, which keeps
 * its windows in memory (limits/rate-limiter.ts), so this table stays empty there.
 */
export const rateLimitWindows = sqliteTable(
  'rate_limit_windows',
  {
    clientHash: text('client_hash').primaryKey(),
    slot: integer('slot').notNull(),
    counts: text('counts', { mode: 'json' }).$type<number[]>().notNull(),
    /** Whether the request that wrote the row last was allowed. */
    allowed: integer('allowed', { mode: 'boolean' }).notNull(),
  },
  (table) => [index('rate_limit_windows_slot').on(table.slot)],
)

/**
 * Failed password attempts per key and client on PostgreSQL, shared by every instance
 * (limits/lockout.ts, DbLockout). The entry is the daily HMAC of the key and the IP.
 * SQLite serves one instance, which keeps them in memory, so this table stays empty there.
 */
export const lockouts = sqliteTable(
  'lockouts',
  {
    entryHash: text('entry_hash').primaryKey(),
    failures: integer('failures').notNull(),
    /** 0 while not locked. */
    lockedUntil: integer('locked_until').notNull(),
    /** When the entry stops mattering: the lock ends, or its failures are too old to count. */
    expiresAt: integer('expires_at').notNull(),
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
export const uploadSessions = sqliteTable(
  'upload_sessions',
  {
    id: text('id').primaryKey(),
    /** `upload` or `request`. */
    kind: text('kind').notNull(),
    requestId: text('request_id'),
    /** `ws` or `chunks`. */
    transport: text('transport').notNull(),
    state: text('state').notNull().default('open'),
    declaredSize: integer('declared_size').notNull(),
    bytesWritten: integer('bytes_written').notNull().default(0),
    receivedBytes: integer('received_bytes').notNull().default(0),
    nextIndex: integer('next_index'),
    /** The stream writer's resumable writer state, or null for the chunk writer. */
    writerState: text('writer_state'),
    /** The store's upload that large chunks join as parts (S3: an UploadId), or null. */
    partsUpload: text('parts_upload'),
    context: text('context').notNull(),
    quota: text('quota').notNull().default(''),
    /** Whether its client asked to resume it; otherwise it ends with its connection or instance. */
    resumable: integer('resumable', { mode: 'boolean' }).notNull().default(true),
    holder: text('holder'),
    heartbeatAt: integer('heartbeat_at').notNull(),
    lastActivity: integer('last_activity').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (table) => [
    index('upload_sessions_last_activity').on(table.lastActivity),
    index('upload_sessions_request_id').on(table.requestId),
    index('upload_sessions_holder').on(table.holder),
  ],
)

/** One stored chunk of a chunk writer's session: its size and where the blob store keeps it. */
export const chunkParts = sqliteTable(
  'chunk_parts',
  {
    sessionId: text('session_id').notNull(),
    chunkIndex: integer('chunk_index').notNull(),
    size: integer('size').notNull(),
    ref: text('ref').notNull(),
    etag: text('etag'),
  },
  (table) => [primaryKey({ columns: [table.sessionId, table.chunkIndex] })],
)

/**
 * The outbox of inbox notifications: one row per channel of a finished upload into a request,
 * written in the transaction that stores the upload. A worker claims a row by moving `leaseUntil`
 * forward in one conditional update, so of several instances one sends it; a delivered or
 * abandoned row is deleted. The row carries its target, so deleting the request loses nothing.
 */
export const notifications = sqliteTable(
  'notifications',
  {
    id: text('id').primaryKey(),
    uploadId: text('upload_id').notNull(),
    requestId: text('request_id').notNull(),
    channel: text('channel').notNull(),
    target: text('target').notNull(),
    secret: blob('secret', { mode: 'buffer' }),
    size: integer('size').notNull(),
    arrivedAt: integer('arrived_at').notNull(),
    attempts: integer('attempts').notNull().default(0),
    notBefore: integer('not_before').notNull().default(0),
    leaseUntil: integer('lease_until').notNull().default(0),
  },
  (table) => [
    index('notifications_not_before').on(table.notBefore),
    index('notifications_upload_id').on(table.uploadId),
  ],
)

/**
 * Personal API tokens (access/api-tokens.ts): a signed-in user's credential for scripts, kept
 * only as the SHA-256 hash of its random bytes and tied to the OIDC subject that made it.
 * `scopes` is a comma-separated list of files, notes and requests. Revoking deletes the row.
 */
export const apiTokens = sqliteTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    subject: text('subject').notNull(),
    name: text('name').notNull(),
    scopes: text('scopes').notNull(),
    tokenHash: blob('token_hash', { mode: 'buffer' }).notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    /** Updated at most once a minute, so a busy script does not write on every request. */
    lastUsedAt: integer('last_used_at'),
  },
  (table) => [
    uniqueIndex('api_tokens_token_hash').on(table.tokenHash),
    index('api_tokens_subject').on(table.subject),
    // The cleanup job's purge of long-expired tokens filters on it.
    index('api_tokens_expires_at').on(table.expiresAt),
  ],
)

/**
 * Read grants (access/read-grants.ts): a counted download's leave to read ranges of the same
 * upload, or of the same inbox file, again without counting, until `expiresAt`; kept only as the
 * SHA-256 hash of the grant token, and removed with what it reads. Exactly one of `uploadId` and
 * `requestUploadId` is set.
 */
export const readGrants = sqliteTable(
  'read_grants',
  {
    tokenHash: blob('token_hash', { mode: 'buffer' }).primaryKey(),
    uploadId: text('upload_id').references(() => uploads.id, { onDelete: 'cascade' }),
    requestUploadId: text('request_upload_id').references(() => requestUploads.id, {
      onDelete: 'cascade',
    }),
    expiresAt: integer('expires_at').notNull(),
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
