/**
 * The process's counters and histograms, and the one-line functions the routes, middleware and
 * services record through. Until a server with METRICS_ENABLED starts, every function returns at
 * its first line; labels take values from fixed sets only, never an id, address, token or name.
 * May touch: the metrics registry (prom-client's, one per process).
 */
import { UPLOAD_STATUS_TRANSPORTS, type UploadStatusTransport } from '@fileshare/protocol'
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client'

/** How an upload's bytes arrive: as the status route names it (docs/api.md), or `single`. */
export type UploadTransport = UploadStatusTransport | 'single'
const UPLOAD_TRANSPORTS: readonly UploadTransport[] = [...UPLOAD_STATUS_TRANSPORTS, 'single']

/** Every route family an HTTP answer is counted under (routeFamily). */
type RouteFamily =
  'upload' | 'download' | 'note' | 'request' | 'inbox' | 'auth' | 'system' | 'web' | 'other'

/** The family of each `/api/<segment>`; segments not listed count as `other`. */
const API_FAMILIES = new Map<string, RouteFamily>([
  ['upload', 'upload'],
  ['meta', 'upload'],
  ['download', 'download'],
  ['info', 'download'],
  ['exists', 'download'],
  ['password', 'download'],
  ['note', 'note'],
  ['request', 'request'],
  ['inbox', 'inbox'],
  ['config', 'system'],
  ['health', 'system'],
  ['ready', 'system'],
  ['quota', 'system'],
])

/** The cleanup report's counts, each under the `kind` label it is recorded with. */
const CLEANUP_KINDS = {
  uploads: 'uploadsRemoved',
  notes: 'notesRemoved',
  tombstones: 'tombstonesPurged',
  request_uploads: 'requestUploadsRemoved',
  requests: 'requestsRemoved',
  api_tokens: 'apiTokensPurged',
  idle_sessions: 'sessionsExpired',
  orphan_blobs: 'orphansRemoved',
  partial_files: 'partialsRemoved',
  retried_blobs: 'blobsRetried',
  limit_windows: 'quotaPruned',
} as const

/** The counts of a cleanup run the metrics record; the cleanup job's report carries them. */
export type CleanupCounts = {
  readonly [Field in (typeof CLEANUP_KINDS)[keyof typeof CLEANUP_KINDS]]: number
} & { readonly leading: boolean; readonly failedSteps: readonly string[] }

/** Latency buckets in seconds, from a cached JSON answer to a slow database or storage call. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

function createMetricSet() {
  const registry = new Registry()
  const registers = [registry]
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers })
  const set = {
    registry,
    uploadsStarted: counter(
      'fileshare_uploads_started_total',
      'Upload sessions opened, uploads into requests included.',
      ['transport'],
    ),
    uploadsCompleted: counter(
      'fileshare_uploads_completed_total',
      'Uploads whose every declared byte arrived and whose blob was committed.',
      ['transport'],
    ),
    uploadsFailed: counter(
      'fileshare_uploads_failed_total',
      'Upload sessions that ended without a stored upload: refused, cancelled, cut off or idle.',
      ['transport'],
    ),
    uploadsResumed: counter(
      'fileshare_uploads_resumed_total',
      'Interrupted uploads that a client took up again where they stopped.',
      ['transport'],
    ),
    bytesReceived: counter(
      'fileshare_upload_bytes_received_total',
      'Ciphertext bytes of upload bodies taken in, counted when each upload ends.',
      ['transport'],
    ),
    requestUploads: counter(
      'fileshare_request_uploads_total',
      'Uploads into file requests that completed.',
      ['transport'],
    ),
    downloads: counter(
      'fileshare_downloads_total',
      'Counted downloads of uploads and of files in inboxes, by how the ciphertext is delivered.',
      ['delivery'],
    ),
    bytesSent: counter(
      'fileshare_download_bytes_sent_total',
      'Ciphertext bytes of downloads streamed by this server (presigned S3 downloads excluded).',
    ),
    noteViews: counter('fileshare_note_views_total', 'Counted note views.'),
    responses: counter(
      'fileshare_http_responses_total',
      'HTTP answers by route family and status class.',
      ['family', 'class'],
    ),
    latency: new Histogram<'family'>({
      name: 'fileshare_http_request_duration_seconds',
      help: 'Time from a request to its answer head, by route family.',
      labelNames: ['family'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    rateLimited: counter(
      'fileshare_rate_limit_refusals_total',
      'Requests and upload sockets refused with 429 by the per-IP rate limit.',
    ),
    lockedOut: counter(
      'fileshare_lockout_refusals_total',
      'Password attempts refused with 429 because the item is locked for the caller.',
    ),
    cleanupRuns: counter('fileshare_cleanup_runs_total', 'Runs of the cleanup job.', ['leading']),
    cleanupRemoved: counter(
      'fileshare_cleanup_removed_total',
      'What the cleanup job removed, by kind.',
      ['kind'],
    ),
    cleanupFailedSteps: counter(
      'fileshare_cleanup_failed_steps_total',
      'Cleanup steps that failed (each is logged).',
      ['step'],
    ),
  }
  // Every series of a fixed label set exists from the start, so rate() sees its first increase.
  for (const transport of UPLOAD_TRANSPORTS) {
    for (const metric of [set.uploadsStarted, set.uploadsCompleted, set.uploadsFailed]) {
      metric.inc({ transport }, 0)
    }
  }
  collectDefaultMetrics({ register: registry })
  return set
}

type MetricSet = ReturnType<typeof createMetricSet>

/** Built once per process, when the first server with metrics starts. */
let created: MetricSet | undefined
/** The set while at least one server with metrics runs; undefined makes every record a no-op. */
let active: MetricSet | undefined
let users = 0

/**
 * Turns recording on and answers the registry; `release` turns it off once every server that
 * asked has stopped. Counters live as long as the process, as Prometheus expects.
 */
export function acquireRecorder(): { registry: Registry; release: () => void } {
  created ??= createMetricSet()
  active = created
  users++
  let released = false
  return {
    registry: created.registry,
    release: () => {
      if (released) return
      released = true
      if (--users === 0) active = undefined
    },
  }
}

export function recordUploadStarted(transport: UploadTransport): void {
  active?.uploadsStarted.inc({ transport })
}

/** An upload that ended with its blob committed; `bytes` is its size. */
export function recordUploadCompleted(
  transport: UploadTransport,
  bytes: number,
  intoRequest = false,
): void {
  if (!active) return
  active.uploadsCompleted.inc({ transport })
  active.bytesReceived.inc({ transport }, bytes)
  if (intoRequest) active.requestUploads.inc({ transport })
}

/** An upload that ended without a stored upload, after taking in `bytes`. */
export function recordUploadFailed(transport: UploadTransport, bytes = 0): void {
  if (!active) return
  active.uploadsFailed.inc({ transport })
  if (bytes > 0) active.bytesReceived.inc({ transport }, bytes)
}

/** What the tracking reads of a session; the upload session layer's sessions have it. */
interface TrackedSession {
  readonly declaredSize: number
  readonly bytesAccepted: number
  onEnd(listener: (outcome: 'committed' | 'aborted') => void): void
}

/**
 * Counts a session of this process as started or resumed, then as completed or failed through its
 * own end listener, so the upload services need no metrics code of their own.
 */
export function trackUploadSession(
  session: TrackedSession,
  transport: UploadTransport,
  intoRequest = false,
  start: 'started' | 'resumed' = 'started',
): void {
  if (!active) return
  const counter = start === 'started' ? active.uploadsStarted : active.uploadsResumed
  counter.inc({ transport })
  session.onEnd((outcome) => {
    if (outcome === 'committed') recordUploadCompleted(transport, session.declaredSize, intoRequest)
    else recordUploadFailed(transport, session.bytesAccepted)
  })
}

/** A counted download whose answer began; `streamed` bytes are recorded by recordBytesSent. */
export function recordDownload(delivery: 'stream' | 'url'): void {
  active?.downloads.inc({ delivery })
}

export function recordBytesSent(bytes: number): void {
  active?.bytesSent.inc(bytes)
}

export function recordNoteView(): void {
  active?.noteViews.inc()
}

export function recordRateLimitRefusal(): void {
  active?.rateLimited.inc()
}

export function recordLockoutRefusal(): void {
  active?.lockedOut.inc()
}

/** The route family of a request path: taken from its first segments, never the path (ids). */
export function routeFamily(path: string): RouteFamily {
  if (path.startsWith('/api/')) {
    const end = path.indexOf('/', 5)
    return API_FAMILIES.get(path.slice(5, end === -1 ? undefined : end)) ?? 'other'
  }
  if (path === '/auth' || path.startsWith('/auth/')) return 'auth'
  if (path === '/api') return 'other'
  return 'web'
}

/** The answer to one HTTP request: its family, status and time to the answer head. */
export function recordHttpAnswer(family: RouteFamily, status: number, seconds: number): void {
  if (!active) return
  active.responses.inc({ family, class: `${Math.floor(status / 100)}xx` })
  active.latency.observe({ family }, seconds)
}

export function recordCleanupRun(report: CleanupCounts): void {
  if (!active) return
  active.cleanupRuns.inc({ leading: String(report.leading) })
  for (const [kind, field] of Object.entries(CLEANUP_KINDS)) {
    const removed = report[field]
    if (removed > 0) active.cleanupRemoved.inc({ kind }, removed)
  }
  for (const step of report.failedSteps) active.cleanupFailedSteps.inc({ step })
}

export function recording(): boolean {
  return active !== undefined
}
