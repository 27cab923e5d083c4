/**
 * The invariants a chaos run checks once its faults have stopped and the cleanup has run: every
 * acknowledged item reads back byte-exact until its limit and not after; nothing deleted or
 * expired reads; no counter passed its limit; no instance exited unasked or logged an unhandled
 * error; no session row, chunk, part, queued removal, reservation or unreferenced object is left;
 * each instance's peak resident set stayed under its bound.
 * May touch: the cluster through its proxy, its PostgreSQL database and S3 bucket (read only).
 */
import { setTimeout as sleep } from 'node:timers/promises'

import {
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
  type ListObjectsV2CommandOutput,
} from '@aws-sdk/client-s3'
import {
  ApiClient,
  inspectFile,
  inspectNote,
  openInbox,
  openRequest,
  parseLink,
  downloadFile,
  downloadInboxFile,
  unlockFile,
  type FileLink,
  type InboxLink,
  type RequestLink,
} from '@fileshare/protocol'
import pg from 'pg'

import { ORPHAN_GRACE_MS, PARTIAL_MARGIN_MS } from '../src/ops/cleanup.js'
import type { ChaosCluster } from './cluster.js'
import type { Ledger, Reads } from './ledger.js'
import { gone, readCounted, storageAnswersApart, viewCounted } from './workload.js'

export interface Bounds {
  /** FILE_REQUEST_DAILY_LIMIT; 0 for none. */
  dailyRequests: number
  /** FILE_UPLOAD_QUOTA_BYTES; 0 for none. */
  quotaBytes: number
  /** Peak resident set of one instance, bytes. */
  peakRssBytes: number
}

/** Reads an item may take to come back after the faults (a 502 while nginx finds its upstream). */
const TRIES = 5
const TRY_GAP_MS = 1_000
const UNHANDLED = /unhandled|uncaught/i
/** How long past its grace the sweep may take to reach a leftover (two cleanup runs and more). */
const SWEEP_SLACK_MS = 60_000

type Violations = Map<string, string[]>

function add(violations: Violations, invariant: string, detail: string): void {
  const list = violations.get(invariant) ?? []
  list.push(detail)
  violations.set(invariant, list)
}

/** `attempt` until it succeeds or answers gone (false), a few times over passing failures. */
async function untilAnswered(attempt: () => Promise<void>): Promise<boolean | Error> {
  let last: unknown
  for (let i = 0; i < TRIES; i++) {
    try {
      await attempt()
      return true
    } catch (error) {
      if (gone(error)) return false
      last = error
      await sleep(TRY_GAP_MS)
    }
  }
  return last instanceof Error ? last : new Error(String(last))
}

/**
 * Reads an item until the service says it is gone, and judges the count: the reads of the
 * workload and these together stay within `max`, and reach it but for reads that broke off.
 */
async function readToLimit(
  violations: Violations,
  what: string,
  reads: Reads,
  max: number,
  read: () => Promise<void>,
  expiresAt = Infinity,
): Promise<void> {
  for (let final = 0; final <= max; final++) {
    const answered = await untilAnswered(read)
    if (answered === false) break
    if (answered instanceof Error) {
      add(violations, 'readable until its limit', `${what}: ${answered.message}`)
      return
    }
  }
  if (reads.completed > max) {
    add(violations, 'counter limits', `${what} was read ${reads.completed} times, limit ${max}`)
  } else if (reads.completed + reads.failed < max && Date.now() < expiresAt) {
    add(
      violations,
      'readable until its limit',
      `${what} ended after ${reads.completed} reads (${reads.failed} broken off), limit ${max}`,
    )
  }
}

/** An item that must no longer be read: `probe` must answer 404 or 410. */
async function unreadable(violations: Violations, what: string, probe: () => Promise<unknown>) {
  const answered = await untilAnswered(async () => {
    await probe()
  })
  if (answered === true) add(violations, 'nothing removed reads', `${what} still answers`)
  else if (answered instanceof Error)
    add(violations, 'nothing removed reads', `${what}: ${answered.message}`)
}

export async function checkItems(
  ledger: Ledger,
  url: string,
  bounds: Bounds,
  violations: Violations,
) {
  const api = new ApiClient({ baseUrl: url, fetch: storageAnswersApart(url) })
  const now = Date.now()
  if (bounds.dailyRequests > 0 && ledger.requestsCreated > bounds.dailyRequests) {
    add(
      violations,
      'counter limits',
      `${ledger.requestsCreated} requests created in a day, limit ${bounds.dailyRequests}`,
    )
  }
  for (const entry of ledger.uploads) {
    const link = parseLink(entry.link).link as FileLink
    const what = `upload ${entry.id} (${entry.via}, ${entry.size} bytes)`
    if (entry.deleted === null) continue
    if (entry.deleted || entry.expiresAt <= now) {
      await unreadable(violations, what, () => inspectFile(api, link))
      continue
    }
    await readToLimit(
      violations,
      what,
      entry.reads,
      entry.maxDownloads,
      () =>
        readCounted(ledger, what, entry.reads, entry.digest, async () => {
          const unlocked = await unlockFile(api, link, await inspectFile(api, link))
          return (await downloadFile(api, unlocked)).stream
        }),
      entry.expiresAt,
    )
  }
  for (const entry of ledger.notes) {
    const link = parseLink(entry.link).link as FileLink
    const what = `note ${entry.id}`
    if (entry.deleted === null) continue
    if (entry.deleted || entry.expiresAt <= now) {
      await unreadable(violations, what, () => inspectNote(api, link))
      continue
    }
    await readToLimit(
      violations,
      what,
      entry.reads,
      entry.maxViews,
      () => viewCounted(ledger, api, entry.link, entry.reads, entry.digest),
      entry.expiresAt,
    )
  }
  for (const entry of ledger.requests) {
    const what = `request ${entry.id}`
    const inboxLink = parseLink(entry.inboxLink).link as InboxLink
    if (entry.deleted === null) continue
    if (entry.deleted) {
      await unreadable(violations, what, () => openInbox(api, inboxLink))
      continue
    }
    if (entry.sent.length > entry.maxUploads) {
      add(
        violations,
        'counter limits',
        `${what} took ${entry.sent.length} uploads, limit ${entry.maxUploads}`,
      )
    }
    if (entry.closed === true) {
      const opened = await openRequest(api, parseLink(entry.uploadLink).link as RequestLink)
      if (opened.open) add(violations, 'closed stays closed', `${what} is open again`)
    }
    const inbox = await openInbox(api, inboxLink)
    if (inbox.entries.length > entry.maxUploads) {
      add(
        violations,
        'counter limits',
        `${what} holds ${inbox.entries.length} uploads, limit ${entry.maxUploads}`,
      )
    }
    for (const sent of entry.sent) {
      if (!inbox.entries.some((file) => file.id === sent.id)) {
        // An upload used up by its downloads leaves the inbox as it should.
        const reads = entry.reads.get(sent.id)
        if (!reads || reads.completed + reads.failed < entry.downloads) {
          add(violations, 'readable until its limit', `${what} lost its upload ${sent.id}`)
        }
      }
    }
    for (const file of inbox.entries) {
      const reads = entry.reads.get(file.id) ?? { completed: 0, failed: 0 }
      entry.reads.set(file.id, reads)
      const expected = entry.sent.find((sent) => sent.id === file.id)?.digest ?? entry.tried
      const name = `${what} upload ${file.id}`
      await readToLimit(violations, name, reads, entry.downloads, () =>
        readCounted(ledger, name, reads, expected, async () => {
          return (await downloadInboxFile(api, inbox, file.id)).stream
        }),
      )
    }
  }
}

/** Counters in the database against their limits, and what must be gone once the run settled. */
export async function checkDatabase(
  databaseUrl: string,
  bounds: Bounds,
  violations: Violations,
): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const rows = async (text: string) =>
      (await client.query(text)).rows as Record<string, unknown>[]
    const counters: Array<[string, string]> = [
      ['uploads', 'select id from uploads where download_count > max_downloads'],
      ['notes', 'select id from notes where view_count > max_views'],
      [
        'request slots',
        'select id from file_requests where used_uploads + reserved_uploads > max_uploads',
      ],
      [
        'request downloads',
        'select u.id from request_uploads u join file_requests r on r.id = u.request_id where u.download_count > r.downloads',
      ],
      [
        'daily requests',
        `select client_key as id from request_daily_counts where count > ${bounds.dailyRequests}`,
      ],
      ['quota', `select client_hash as id from upload_quota where bytes > ${bounds.quotaBytes}`],
    ]
    for (const [name, query] of counters) {
      for (const row of await rows(query))
        add(violations, 'counter limits', `${name}: ${String(row.id)}`)
    }
    await checkHolds(rows, violations)
  } finally {
    await client.end()
  }
}

/**
 * How long a session may wait for its client before the cleanup must have ended it: a chunked
 * upload into a request keeps its slot for the spec's hour, every other session idles out after
 * UPLOAD_SESSION_IDLE_SEC.
 */
export interface SessionLifetimes {
  idleMs: number
  requestChunksMs: number
  /** What the cleanup may take beyond a lifetime to notice it has passed. */
  marginMs: number
}

/**
 * Sessions past their lifetime are orphans; those within it may still be resumed, and what they
 * hold (quota, a request's slot, chunks, parts) must be theirs: the holds in the database are
 * exactly the sum of the live sessions' holds, and every chunk row names a live session.
 */
async function checkHolds(
  rows: (text: string, values?: unknown[]) => Promise<Record<string, unknown>[]>,
  violations: Violations,
): Promise<void> {
  const sessions = await rows('select id, request_id, quota from upload_sessions')
  const held = new Map<string, number>()
  const reserved = new Map<string, number>()
  for (const session of sessions) {
    const quota = String(session.quota ?? '')
    if (quota !== '') {
      const hold = JSON.parse(quota) as { clientHash: string; windowStart: number; bytes: number }
      const key = `${hold.clientHash} ${hold.windowStart}`
      held.set(key, (held.get(key) ?? 0) + hold.bytes)
    }
    if (session.request_id !== null) {
      const id = String(session.request_id)
      reserved.set(id, (reserved.get(id) ?? 0) + 1)
    }
  }
  for (const row of await rows('select client_hash, window_start, held from upload_quota')) {
    const key = `${String(row.client_hash)} ${String(row.window_start)}`
    const expected = held.get(key) ?? 0
    if (Number(row.held) !== expected) {
      add(
        violations,
        'no orphans',
        `quota of ${key} holds ${String(row.held)} bytes, its sessions ${expected}`,
      )
    }
  }
  for (const row of await rows(
    'select id, reserved_uploads + reserved_notes as n from file_requests',
  )) {
    const expected = reserved.get(String(row.id)) ?? 0
    if (Number(row.n) !== expected) {
      add(
        violations,
        'no orphans',
        `request ${String(row.id)} reserves ${String(row.n)} slots, its sessions ${expected}`,
      )
    }
  }
  for (const row of await rows(
    'select distinct session_id from chunk_parts where session_id not in (select id from upload_sessions)',
  )) {
    add(violations, 'no orphans', `chunks of ended session ${String(row.session_id)}`)
  }
}

/** Sessions past their lifetime (with the margin) and removals past due, in words. */
export async function overdue(databaseUrl: string, lifetimes: SessionLifetimes): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const now = Date.now()
    const { rows } = await client.query<{ what: string }>(
      `select 'session ' || id || ' (' || kind || ', ' || transport || ', ' || state || ', idle ' ||
          (($1 - last_activity) / 1000) || ' s)' as what
        from upload_sessions
        where last_activity < $1 - $3 - case when request_id is not null and transport = 'chunks'
          then $2::bigint else $4::bigint end
       union all
       select 'removal of ' || key || ' due ' || (($1 - not_before) / 1000) || ' s ago' as what
         from blob_deletions where not_before < $1 - $3`,
      [now, lifetimes.requestChunksMs, lifetimes.marginMs, lifetimes.idleMs],
    )
    return rows.map((row) => row.what)
  } finally {
    await client.end()
  }
}

/**
 * Every object in the bucket belongs to a stored upload, a live session or a queued removal, and
 * every open multipart upload to a live session. What a crash leaves between writing a blob and
 * its record the cleanup sweeps once it is older than its grace (ORPHAN_GRACE_MS, and the idle
 * time plus PARTIAL_MARGIN_MS for parts): younger leftovers are counted as awaiting that sweep,
 * older ones are orphans it missed.
 */
export async function checkBucket(
  cluster: ChaosCluster,
  idleMs: number,
  violations: Violations,
): Promise<{ awaitingSweep: number }> {
  let awaitingSweep = 0
  const now = Date.now()
  const judge = (what: string, since: Date | undefined, graceMs: number) => {
    if (since !== undefined && now - since.getTime() < graceMs + SWEEP_SLACK_MS) awaitingSweep++
    else add(violations, 'no orphans', what)
  }
  const { storage, databaseUrl } = cluster
  if (!storage || !databaseUrl) return { awaitingSweep }
  const { bucket } = storage
  const s3 = new S3Client({
    endpoint: storage.endpoint,
    region: storage.region,
    forcePathStyle: true,
    credentials: { accessKeyId: storage.accessKeyId, secretAccessKey: storage.secretAccessKey },
  })
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const { rows } = await client.query<{ id: string }>(
      `select id from uploads union select id from request_uploads union select key from blob_deletions
        union select id from upload_sessions`,
    )
    const known = new Set(rows.map((row) => row.id))
    // A chunk is stored as chunks/<session>.<index>.<random>: it belongs to its session.
    const owner = (key: string) => key.replace(/^chunks\//, '').split('.')[0]!
    const stored = new Set<string>()
    let token: string | undefined
    do {
      const page: ListObjectsV2CommandOutput = await s3.send(
        new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }),
      )
      for (const object of page.Contents ?? []) {
        const key = object.Key ?? ''
        stored.add(key)
        if (!known.has(owner(key))) judge(`object ${key}`, object.LastModified, ORPHAN_GRACE_MS)
      }
      token = page.NextContinuationToken
    } while (token)
    const { Uploads = [] } = await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket }))
    for (const upload of Uploads) {
      if (!known.has(owner(upload.Key ?? ''))) {
        judge(`multipart upload of ${upload.Key}`, upload.Initiated, idleMs + PARTIAL_MARGIN_MS)
      }
    }
    const { rows: items } = await client.query<{ id: string }>(
      'select id from uploads union select id from request_uploads',
    )
    for (const { id } of items) {
      if (!stored.has(id))
        add(violations, 'readable until its limit', `stored item ${id} has no blob`)
    }
  } finally {
    s3.destroy()
    await client.end()
  }
  return { awaitingSweep }
}

/** Exits the schedule did not ask for, unhandled errors in the logs, and peak memory. */
export function checkProcesses(cluster: ChaosCluster, bounds: Bounds, violations: Violations) {
  for (const what of cluster.unexpected) add(violations, 'no unasked exits', what)
  for (const line of cluster.logs()) {
    if (UNHANDLED.test(line)) add(violations, 'no unhandled errors', line.slice(0, 300))
  }
  for (const instance of cluster.instances) {
    if (instance.peakRss > bounds.peakRssBytes) {
      add(
        violations,
        'peak memory',
        `instance ${instance.index} peaked at ${Math.round(instance.peakRss / 2 ** 20)} MiB`,
      )
    }
  }
}
