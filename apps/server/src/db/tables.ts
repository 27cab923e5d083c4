/**
 * The database's tables, written once for both dialects: `defineTables` builds them from a set of
 * column types, PostgreSQL's (`pgColumns`, below) or SQLite's (schema.ts), so the two schemas
 * cannot drift apart. Bearer tokens are stored only as SHA-256 hashes (access/tokens.ts), so a
 * stolen database opens nothing. Times are milliseconds since the epoch; `long` columns hold
 * times and byte counts beyond 32 bits.
 * May touch: nothing (pure).
 */
import { sql } from 'drizzle-orm'
import * as pg from 'drizzle-orm/pg-core'

/** PostgreSQL's column types under the tables' names; the services' view of both (client.ts). */
export const pgColumns = {
  table: pg.pgTable,
  text: pg.text,
  int: pg.integer,
  long: (name: string) => pg.bigint(name, { mode: 'number' }),
  flag: pg.boolean,
  /** Bytes, read and written as a Node Buffer (node-postgres's own mapping of `bytea`). */
  bytes: pg.customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' }),
  intList: (name: string) => pg.integer(name).array(),
  serialKey: (name: string) => pg.serial(name).primaryKey(),
  index: pg.index,
  uniqueIndex: pg.uniqueIndex,
  primaryKey: pg.primaryKey,
  check: pg.check,
}

export type Columns = typeof pgColumns

export function defineTables(c: Columns) {
  /** A finished file upload; it exists only once its blob is complete (spec: File upload states). */
  const uploads = c.table(
    'uploads',
    {
      id: c.text('id').primaryKey(),
      size: c.long('size').notNull(),
      salt: c.text('salt').notNull(),
      fileCount: c.int('file_count').notNull(),
      maxDownloads: c.int('max_downloads').notNull(),
      downloadCount: c.int('download_count').notNull().default(0),
      hasPassword: c.flag('has_password').notNull(),
      passwordSalt: c.text('password_salt'),
      passwordAlgo: c.text('password_algo'),
      authTokenHash: c.bytes('auth_token_hash').notNull(),
      ownerTokenHash: c.bytes('owner_token_hash').notNull(),
      encryptedMeta: c.text('encrypted_meta'),
      metaNonce: c.text('meta_nonce'),
      createdAt: c.long('created_at').notNull(),
      expiresAt: c.long('expires_at').notNull(),
      /** When the last download was counted; its blob outlives the record by a presigned URL's life. */
      lastDownloadAt: c.long('last_download_at'),
    },
    (table) => [c.index('uploads_expires_at').on(table.expiresAt)],
  )

  /**
   * A file request (spec: File request record). Slot counters live on the row, so reserving a slot
   * and checking the size is one conditional UPDATE; `reservedUploads` counts running sessions.
   */
  const fileRequests = c.table(
    'file_requests',
    {
      id: c.text('id').primaryKey(),
      vault: c.bytes('vault').notNull(),
      vaultNonce: c.bytes('vault_nonce').notNull(),
      briefCiphertext: c.bytes('brief_ciphertext').notNull(),
      briefNonce: c.bytes('brief_nonce').notNull(),
      uploadTokenHash: c.bytes('upload_token_hash').notNull(),
      inboxTokenHash: c.bytes('inbox_token_hash').notNull(),
      inboxOwnerTokenHash: c.bytes('inbox_owner_token_hash').notNull(),
      hasPassword: c.flag('has_password').notNull(),
      maxUploads: c.int('max_uploads').notNull(),
      maxSize: c.long('max_size').notNull(),
      downloads: c.int('downloads').notNull(),
      reservedUploads: c.int('reserved_uploads').notNull().default(0),
      /** The reset at start spares requests reserved since: another instance may be reserving. */
      slotReservedAt: c.long('slot_reserved_at').notNull().default(0),
      /** Finished uploads, deleted ones included (spec: GET /api/inbox/:id, usedUploads). */
      usedUploads: c.int('used_uploads').notNull().default(0),
      usedBytes: c.long('used_bytes').notNull().default(0),
      /** Slots of `maxUploads` kept for senders' notes, and how many are reserved and used. */
      noteSlots: c.int('note_slots').notNull().default(0),
      reservedNotes: c.int('reserved_notes').notNull().default(0),
      usedNotes: c.int('used_notes').notNull().default(0),
      closed: c.flag('closed').notNull().default(false),
      createdAt: c.long('created_at').notNull(),
      closesAt: c.long('closes_at').notNull(),
      /** Where to tell the creator of an upload (notify/); null for nobody. */
      notifyEmail: c.text('notify_email'),
      /** Notification mails queued for this request, held to NOTIFY_EMAIL_MAX_PER_REQUEST. */
      notifyEmailsQueued: c.int('notify_emails_queued').notNull().default(0),
      notifyWebhook: c.text('notify_webhook'),
      /** The key webhook deliveries are signed with, given to the creator once. */
      notifyWebhookSecret: c.bytes('notify_webhook_secret'),
    },
    (table) => [c.index('file_requests_closes_at').on(table.closesAt)],
  )

  /** A finished upload inside a request (spec: Upload inside a request); its blob has its id. */
  const requestUploads = c.table(
    'request_uploads',
    {
      id: c.text('id').primaryKey(),
      requestId: c
        .text('request_id')
        .notNull()
        .references(() => fileRequests.id, { onDelete: 'cascade' }),
      size: c.long('size').notNull(),
      fileCount: c.int('file_count').notNull(),
      salt: c.bytes('salt').notNull(),
      wrapEnc: c.bytes('wrap_enc').notNull(),
      wrapCiphertext: c.bytes('wrap_ciphertext').notNull(),
      encryptedMeta: c.bytes('encrypted_meta').notNull(),
      metaNonce: c.bytes('meta_nonce').notNull(),
      downloadCount: c.int('download_count').notNull().default(0),
      maxDownloads: c.int('max_downloads').notNull(),
      createdAt: c.long('created_at').notNull(),
      /** Arrival plus FILE_REQUEST_RETENTION_SEC. */
      expiresAt: c.long('expires_at').notNull(),
      /** When the last download was counted, as on `uploads`. */
      lastDownloadAt: c.long('last_download_at'),
    },
    (table) => [
      c.index('request_uploads_request_id').on(table.requestId),
      c.index('request_uploads_expires_at').on(table.expiresAt),
    ],
  )

  return {
    uploads,
    notes: c.table(
      'notes',
      {
        id: c.text('id').primaryKey(),
        contentType: c.text('content_type').notNull(),
        encryptedContent: c.bytes('encrypted_content').notNull(),
        nonce: c.bytes('nonce').notNull(),
        salt: c.text('salt').notNull(),
        maxViews: c.int('max_views').notNull(),
        viewCount: c.int('view_count').notNull().default(0),
        hasPassword: c.flag('has_password').notNull(),
        passwordSalt: c.text('password_salt'),
        passwordAlgo: c.text('password_algo'),
        authTokenHash: c.bytes('auth_token_hash').notNull(),
        ownerTokenHash: c.bytes('owner_token_hash').notNull(),
        createdAt: c.long('created_at').notNull(),
        expiresAt: c.long('expires_at').notNull(),
      },
      (table) => [c.index('notes_expires_at').on(table.expiresAt)],
    ),

    /** Bytes each client (an HMAC of its IP) uploaded, and holds in running uploads, per window. */
    uploadQuota: c.table(
      'upload_quota',
      {
        clientHash: c.text('client_hash').notNull(),
        windowStart: c.long('window_start').notNull(),
        bytes: c.long('bytes').notNull(),
        held: c.long('held').notNull().default(0),
      },
      (table) => [c.primaryKey({ columns: [table.clientHash, table.windowStart] })],
    ),

    /** Blobs whose removal failed, or held until their presigned URL expires (blob-janitor.ts). */
    blobDeletions: c.table('blob_deletions', {
      key: c.text('key').primaryKey(),
      attempts: c.int('attempts').notNull().default(0),
      queuedAt: c.long('queued_at').notNull(),
      notBefore: c.long('not_before').notNull().default(0),
    }),

    /** Server-wide secrets and settings generated at first start (such as the quota HMAC key). */
    settings: c.table('settings', {
      key: c.text('key').primaryKey(),
      value: c.bytes('value').notNull(),
    }),

    fileRequests,
    requestUploads,

    /** Requests per client and UTC day (FILE_REQUEST_DAILY_LIMIT), kept so a restart keeps them. */
    requestDailyCounts: c.table(
      'request_daily_counts',
      {
        clientKey: c.text('client_key').notNull(),
        dayStart: c.long('day_start').notNull(),
        count: c.int('count').notNull(),
      },
      (table) => [c.primaryKey({ columns: [table.clientKey, table.dayStart] })],
    ),

    /** What is left of a removed upload or note: its id answers 410 (records/tombstones.ts). */
    tombstones: c.table(
      'tombstones',
      {
        id: c.text('id').primaryKey(),
        /** `upload` or `note`. */
        kind: c.text('kind').notNull(),
        ownerTokenHash: c.bytes('owner_token_hash').notNull(),
        /** The item's own expiry; a used-up item may not have reached it yet. */
        expiresAt: c.long('expires_at').notNull(),
        /** When the operator took the item down (`fileshare-admin rm`); null when it expired. */
        removedAt: c.long('removed_at'),
        /** The operator's words on a takedown, shown with its 410; null when none were given. */
        takedownReason: c.text('takedown_reason'),
      },
      (table) => [c.index('tombstones_expires_at').on(table.expiresAt)],
    ),

    /**
     * Abuse reports (`POST /api/report/:id`, `fileshare-admin reports`). `key` is the link
     * secret, only when the reporter chose to include it; nothing of the reporter is kept.
     */
    reports: c.table(
      'reports',
      {
        id: c.serialKey('id'),
        /** The reported upload, note or request id, whether or not it exists. */
        targetId: c.text('target_id').notNull(),
        reason: c.text('reason').notNull(),
        key: c.text('key'),
        /** `open`, `resolved` or `dismissed`. */
        status: c.text('status').notNull().default('open'),
        createdAt: c.long('created_at').notNull(),
        closedAt: c.long('closed_at'),
        /** When a digest to ABUSE_EMAIL that named it was sent; null until then. */
        mailedAt: c.long('mailed_at'),
        /** Until when an instance holds it for the digest it is sending. */
        mailLeaseUntil: c.long('mail_lease_until').notNull().default(0),
      },
      (table) => [c.index('reports_status').on(table.status)],
    ),

    /**
     * Each client's rate-limit window on PostgreSQL, shared by every instance: the newest slot and
     * the counts per slot, newest first (limits/shared-rate-limiter.ts). Empty on SQLite.
     */
    rateLimitWindows: c.table(
      'rate_limit_windows',
      {
        clientHash: c.text('client_hash').primaryKey(),
        slot: c.long('slot').notNull(),
        counts: c.intList('counts').notNull(),
        /** Whether the request that wrote the row last was allowed. */
        allowed: c.flag('allowed').notNull(),
      },
      (table) => [c.index('rate_limit_windows_slot').on(table.slot)],
    ),

    /** Failed password attempts per key and client on PostgreSQL (limits/lockout.ts). */
    lockouts: c.table(
      'lockouts',
      {
        entryHash: c.text('entry_hash').primaryKey(),
        failures: c.int('failures').notNull(),
        /** 0 while not locked. */
        lockedUntil: c.long('locked_until').notNull(),
        /** When the entry stops mattering: the lock ends, or its failures are too old to count. */
        expiresAt: c.long('expires_at').notNull(),
      },
      (table) => [c.index('lockouts_expires_at').on(table.expiresAt)],
    ),

    /**
     * Every upload session under way: the stream writer records its resumable blob writer's
     * durable points (`writerState`); the chunk writer (chunked HTTP on PostgreSQL) stores chunks
     * any instance takes (`chunk_parts`). `receivedBytes` grows only by a conditional update;
     * `context` is the JSON the record is made from (token hashes, never tokens); `holder` holds
     * the session until `heartbeatAt` grows old; `state` is `committing` once finalize claims it.
     */
    uploadSessions: c.table(
      'upload_sessions',
      {
        id: c.text('id').primaryKey(),
        /** `upload` or `request`. */
        kind: c.text('kind').notNull(),
        requestId: c.text('request_id'),
        /** `ws` or `chunks`. */
        transport: c.text('transport').notNull(),
        state: c.text('state').notNull().default('open'),
        declaredSize: c.long('declared_size').notNull(),
        bytesWritten: c.long('bytes_written').notNull().default(0),
        receivedBytes: c.long('received_bytes').notNull().default(0),
        nextIndex: c.int('next_index'),
        writerState: c.text('writer_state'),
        /** The store's upload that large chunks join as parts (S3: an UploadId), or null. */
        partsUpload: c.text('parts_upload'),
        context: c.text('context').notNull(),
        quota: c.text('quota').notNull().default(''),
        /** Whether its client asked to resume it; else it ends with its connection or instance. */
        resumable: c.flag('resumable').notNull().default(true),
        holder: c.text('holder'),
        heartbeatAt: c.long('heartbeat_at').notNull(),
        lastActivity: c.long('last_activity').notNull(),
        createdAt: c.long('created_at').notNull(),
      },
      (table) => [
        c.index('upload_sessions_last_activity').on(table.lastActivity),
        c.index('upload_sessions_request_id').on(table.requestId),
        c.index('upload_sessions_holder').on(table.holder),
      ],
    ),

    /** One stored chunk of a chunk writer's session: its size and where the blob store keeps it. */
    chunkParts: c.table(
      'chunk_parts',
      {
        sessionId: c.text('session_id').notNull(),
        chunkIndex: c.int('chunk_index').notNull(),
        size: c.long('size').notNull(),
        ref: c.text('ref').notNull(),
        etag: c.text('etag'),
      },
      (table) => [c.primaryKey({ columns: [table.sessionId, table.chunkIndex] })],
    ),

    /**
     * The outbox of inbox notifications, written with the upload they tell of. A worker claims a
     * row by moving `leaseUntil` in one conditional update, so of several instances one sends it.
     */
    notifications: c.table(
      'notifications',
      {
        id: c.text('id').primaryKey(),
        uploadId: c.text('upload_id').notNull(),
        requestId: c.text('request_id').notNull(),
        channel: c.text('channel').notNull(),
        target: c.text('target').notNull(),
        secret: c.bytes('secret'),
        size: c.long('size').notNull(),
        arrivedAt: c.long('arrived_at').notNull(),
        attempts: c.int('attempts').notNull().default(0),
        notBefore: c.long('not_before').notNull().default(0),
        leaseUntil: c.long('lease_until').notNull().default(0),
      },
      (table) => [
        c.index('notifications_not_before').on(table.notBefore),
        c.index('notifications_upload_id').on(table.uploadId),
      ],
    ),

    /** Personal API tokens (access/api-tokens.ts); `scopes` is a comma-separated list. */
    apiTokens: c.table(
      'api_tokens',
      {
        id: c.text('id').primaryKey(),
        subject: c.text('subject').notNull(),
        name: c.text('name').notNull(),
        scopes: c.text('scopes').notNull(),
        tokenHash: c.bytes('token_hash').notNull(),
        createdAt: c.long('created_at').notNull(),
        expiresAt: c.long('expires_at').notNull(),
        /** Updated at most once a minute, so a busy script does not write on every request. */
        lastUsedAt: c.long('last_used_at'),
      },
      (table) => [
        c.uniqueIndex('api_tokens_token_hash').on(table.tokenHash),
        c.index('api_tokens_subject').on(table.subject),
        // The cleanup job's purge of long-expired tokens filters on it.
        c.index('api_tokens_expires_at').on(table.expiresAt),
      ],
    ),

    /** Read grants (records/counted-reads.ts), for exactly one of an upload and an inbox file. */
    readGrants: c.table(
      'read_grants',
      {
        tokenHash: c.bytes('token_hash').primaryKey(),
        uploadId: c.text('upload_id').references(() => uploads.id, { onDelete: 'cascade' }),
        requestUploadId: c.text('request_upload_id').references(() => requestUploads.id, {
          onDelete: 'cascade',
        }),
        expiresAt: c.long('expires_at').notNull(),
      },
      (table) => [
        c.index('read_grants_upload_id').on(table.uploadId),
        c.index('read_grants_request_upload_id').on(table.requestUploadId),
        c.index('read_grants_expires_at').on(table.expiresAt),
        c.check(
          'read_grants_one_holder',
          sql`(${table.uploadId} is null) <> (${table.requestUploadId} is null)`,
        ),
      ],
    ),
  }
}
