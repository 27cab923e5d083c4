/**
 * The mixed workload of a chaos run, through the real clients: uploads over the WebSocket and
 * chunked HTTP with the protocol client (resuming after lost connections) and with the
 * `fileshare` command, downloads and note views up to their limits, requests filled by concurrent
 * senders and read by their requester, deletes and closes. Each worker draws its operations from
 * the seed; what the service acknowledged goes into the ledger, and a wrong answer is a violation
 * on the spot.
 * May touch: the cluster through its proxy, child processes of the command line, files under its
 * temporary folder.
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

import {
  ApiClient,
  ApiError,
  closeInbox,
  createFileRequest,
  createNote,
  deleteFile,
  deleteInbox,
  deleteNote,
  downloadFile,
  downloadInboxFile,
  inspectFile,
  inspectNote,
  openInbox,
  openRequest,
  parseLink,
  sendFile,
  sendToRequest,
  unlockFile,
  unlockNote,
  viewNote,
  type FileLink,
  type InboxLink,
  type ConfigResponse,
  type PayloadSource,
  type RequestLink,
} from '@fileshare/protocol'
import WebSocket from 'ws'

import { PseudoRandomPayload } from '../test/pseudo-random.js'
import { digestOf, noReads, type Ledger, type Reads, type RequestEntry } from './ledger.js'
import { Seeded } from './seeded.js'

const run = promisify(execFile)
const CLI = fileURLToPath(new URL('../../cli/dist/index.js', import.meta.url))

/**
 * Settings the fixture's instances start with, so that the workload finds short expiries and
 * small limits among the options it draws from (it reads them from `GET /api/config`).
 */
export const WORKLOAD_SETTINGS = {
  FILE_EXPIRE_OPTIONS_SEC: '4,3600',
  FILE_DOWNLOAD_OPTIONS: '1,2,3',
  NOTE_EXPIRE_OPTIONS_SEC: '4,3600',
  NOTE_VIEW_OPTIONS: '1,2,3',
  FILE_REQUEST_UPLOAD_OPTIONS: '1,2,3',
  FILE_REQUEST_DOWNLOAD_OPTIONS: '1,2',
}
/** How long a lost connection is retried: past the hold of a killed instance's sessions. */
const RESUME_MS = 60_000

const WEIGHTS = {
  uploadWs: 4,
  uploadChunks: 3,
  uploadCli: 1,
  download: 5,
  note: 2,
  view: 3,
  request: 1,
  inbox: 2,
  remove: 1,
}

export interface WorkloadOptions {
  url: string
  /** The server's options (`GET /api/config`), which the workload draws from. */
  config: ConfigResponse
  seed: number
  workers: number
  /** Largest upload in bytes. */
  maxBytes: number
  /** When the workers stop starting operations (Date.now()). */
  until: number
  ledger: Ledger
}

/** Runs the workers until `until`, then waits for the operations in flight. */
export async function runWorkload(options: WorkloadOptions): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'fileshare-chaos-clients-'))
  try {
    const workers = Array.from({ length: options.workers }, (_, index) =>
      new Worker(options, index, dir).run(),
    )
    await Promise.all(workers)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** What an error says for the failure counts: the status, or the protocol's code. */
function failureName(error: unknown): string {
  if (error instanceof ApiError) return `http ${error.status}`
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') return error.code
  return error instanceof Error ? error.name : 'error'
}

/** An error's message with its causes, for the failure samples. */
function describe(error: unknown): string {
  const parts: string[] = []
  for (let at = error, depth = 0; at instanceof Error && depth < 4; depth++) {
    parts.push(at.message)
    at = at.cause
  }
  return parts.join(' <- ').slice(0, 300)
}

export const gone = (error: unknown): boolean =>
  error instanceof ApiError && (error.status === 404 || error.status === 410)

class Worker {
  private readonly random: Seeded
  private readonly ws: ApiClient
  private readonly chunks: ApiClient

  constructor(
    private readonly options: WorkloadOptions,
    private readonly index: number,
    private readonly dir: string,
  ) {
    this.random = Seeded.derive(options.seed, `worker ${index}`)
    const fetch = storageAnswersApart(options.url)
    this.ws = new ApiClient({
      baseUrl: options.url,
      fetch,
      webSocket: (url) => new WebSocket(url),
    })
    this.chunks = new ApiClient({ baseUrl: options.url, fetch })
  }

  async run(): Promise<void> {
    while (Date.now() < this.options.until) {
      const operation = this.random.weighted(WEIGHTS)
      this.options.ledger.operations++
      try {
        await this[operation]()
      } catch (error) {
        this.options.ledger.fail(`${operation}: ${failureName(error)}`, describe(error))
      }
    }
  }

  private get ledger(): Ledger {
    return this.options.ledger
  }

  private get config(): ConfigResponse {
    return this.options.config
  }

  /** The shortest of `options` one time in four (to see items expire), else the longest. */
  private expiry(options: readonly number[]): number {
    return this.random.chance(0.25) ? Math.min(...options) : Math.max(...options)
  }

  private payload(max = Math.min(this.options.maxBytes, this.config.maxFileSize / 2)) {
    const seed = new Uint8Array(8)
    new DataView(seed.buffer).setFloat64(0, this.random.next())
    return new PseudoRandomPayload(this.random.size(max), seed)
  }

  private async uploadWs(): Promise<void> {
    await this.upload(this.ws, 'ws')
  }

  private async uploadChunks(): Promise<void> {
    await this.upload(this.chunks, 'chunks')
  }

  private async upload(api: ApiClient, via: 'ws' | 'chunks'): Promise<void> {
    const payload = this.payload()
    const maxDownloads = this.random.pick(this.config.downloadOptions)
    const sent = await sendFile(api, sourceOf(payload), {
      expireSec: this.expiry(this.config.expireOptions),
      maxDownloads,
      metadata: {
        archive: false,
        files: [{ name: 'payload.bin', type: 'application/octet-stream', size: payload.size }],
      },
      fileCount: 1,
      resume: { retryForMs: RESUME_MS },
    })
    this.ledger.uploads.push({
      id: sent.id,
      link: sent.link,
      ownerToken: sent.ownerToken,
      size: payload.size,
      digest: payload.digest(),
      maxDownloads,
      expiresAt: Date.parse(sent.expiresAt),
      via,
      reads: noReads(),
      deleted: false,
    })
  }

  /** `fileshare send --json` of a file holding the payload. */
  private async uploadCli(): Promise<void> {
    const payload = this.payload()
    const file = join(this.dir, `worker-${this.index}.bin`)
    await pipeline(Readable.from(payload.pieces(0)), createWriteStream(file))
    const maxDownloads = this.random.pick(this.config.downloadOptions)
    const expire = this.expiry(this.config.expireOptions)
    const home = join(this.dir, `home-${this.index}`)
    const { stdout } = await run(
      process.execPath,
      [
        CLI,
        'send',
        file,
        '--json',
        '--quiet',
        '--server',
        this.options.url,
        '--downloads',
        String(maxDownloads),
        '--expire',
        `${expire}s`,
      ],
      { env: { PATH: process.env.PATH ?? '', HOME: home }, maxBuffer: 1 << 20 },
    )
    const sent = JSON.parse(stdout) as { link: string; id: string; expiresAt: string }
    this.ledger.uploads.push({
      id: sent.id,
      link: sent.link,
      ownerToken: null,
      size: payload.size,
      digest: payload.digest(),
      maxDownloads,
      expiresAt: Date.parse(sent.expiresAt),
      via: 'cli',
      reads: noReads(),
      deleted: false,
    })
  }

  private async download(): Promise<void> {
    const open = this.ledger.uploads.filter(
      (entry) =>
        entry.deleted === false &&
        entry.expiresAt > Date.now() &&
        entry.reads.completed < entry.maxDownloads,
    )
    if (open.length === 0) return this.uploadWs()
    const entry = this.random.pick(open)
    await readCounted(this.ledger, `upload ${entry.id}`, entry.reads, entry.digest, async () => {
      const link = parseLink(entry.link).link as FileLink
      const unlocked = await unlockFile(this.ws, link, await inspectFile(this.ws, link))
      const result = await downloadFile(this.ws, unlocked, { resume: { retryForMs: RESUME_MS } })
      return result.stream
    })
  }

  private async note(): Promise<void> {
    const text = `note ${this.random.next()} `.repeat(this.random.int(1, 2000))
    const maxViews = this.random.pick(this.config.noteViewOptions)
    const created = await createNote(this.ws, {
      text,
      contentType: 'text',
      maxViews,
      expireSec: this.expiry(this.config.noteExpireOptions),
    })
    this.ledger.notes.push({
      id: created.id,
      link: created.link,
      ownerToken: created.ownerToken,
      digest: digestOf(text),
      maxViews,
      expiresAt: Date.parse(created.expiresAt),
      reads: noReads(),
      deleted: false,
    })
  }

  private async view(): Promise<void> {
    const open = this.ledger.notes.filter(
      (entry) =>
        entry.deleted === false &&
        entry.expiresAt > Date.now() &&
        entry.reads.completed < entry.maxViews,
    )
    if (open.length === 0) return this.note()
    const entry = this.random.pick(open)
    await viewCounted(this.ledger, this.ws, entry.link, entry.reads, entry.digest)
  }

  /** A request, then senders at once, as many as its slots or more. */
  private async request(): Promise<void> {
    if (!this.config.fileRequestsEnabled) return this.uploadChunks()
    const maxUploads = this.random.pick(this.config.fileRequestUploadOptions)
    const downloads = this.random.pick(this.config.fileRequestDownloadOptions)
    let created
    try {
      created = await createFileRequest(this.chunks, {
        message: 'chaos',
        expireSec: Math.max(...this.config.fileRequestExpireOptions),
        maxUploads,
        maxSize: this.config.fileRequestMaxSize,
        downloads,
      })
    } catch (error) {
      if (error instanceof ApiError && error.status === 429)
        this.ledger.fail('request: daily limit')
      else throw error
      return
    }
    this.ledger.requestsCreated++
    const entry: RequestEntry = {
      id: created.id,
      uploadLink: created.uploadLink,
      inboxLink: created.inboxLink,
      inboxOwnerToken: created.inboxOwnerToken,
      maxUploads,
      downloads,
      sent: [],
      tried: new Set(),
      reads: new Map(),
      closed: false,
      deleted: false,
    }
    this.ledger.requests.push(entry)
    const senders = maxUploads + this.random.int(0, 2)
    const largest = Math.min(this.options.maxBytes / 4, this.config.fileRequestMaxSize / 2)
    const payloads = Array.from({ length: senders }, () => this.payload(largest))
    const apis = payloads.map(() => (this.random.chance(0.5) ? this.ws : this.chunks))
    await Promise.all(
      payloads.map(async (payload, i) => {
        const digest = payload.digest()
        entry.tried.add(digest)
        try {
          const api = apis[i]!
          const opened = await openRequest(api, parseLink(entry.uploadLink).link as RequestLink)
          const sent = await sendToRequest(api, opened, sourceOf(payload), {
            metadata: {
              archive: false,
              files: [
                { name: 'payload.bin', type: 'application/octet-stream', size: payload.size },
              ],
            },
            fileCount: 1,
            resume: { retryForMs: RESUME_MS },
          })
          entry.sent.push({ id: sent.id, digest })
        } catch (error) {
          this.ledger.fail(`request upload: ${failureName(error)}`, describe(error))
        }
      }),
    )
  }

  /** The requester opens an inbox and downloads one of its uploads. */
  private async inbox(): Promise<void> {
    const open = this.ledger.requests.filter((entry) => entry.deleted === false)
    if (open.length === 0) return this.request()
    const entry = this.random.pick(open)
    const inbox = await openInbox(this.chunks, parseLink(entry.inboxLink).link as InboxLink)
    for (const unreadable of inbox.unreadable) {
      this.ledger.violate(
        'byte-exact',
        `inbox ${entry.id} holds an unreadable upload ${unreadable}`,
      )
    }
    const readable = inbox.entries.filter(
      (file) => (entry.reads.get(file.id)?.completed ?? 0) < entry.downloads,
    )
    if (readable.length === 0) return
    const file = this.random.pick(readable)
    const reads = entry.reads.get(file.id) ?? noReads()
    entry.reads.set(file.id, reads)
    const expected = entry.sent.find((sent) => sent.id === file.id)?.digest ?? entry.tried
    await readCounted(this.ledger, `request upload ${file.id}`, reads, expected, async () => {
      const result = await downloadInboxFile(this.chunks, inbox, file.id)
      return result.stream
    })
  }

  /** Deletes an upload, a note or a request, or closes a request. */
  private async remove(): Promise<void> {
    const kind = this.random.pick(['upload', 'note', 'close', 'request'] as const)
    const api = this.chunks
    const requests = this.ledger.requests.filter((e) => e.closed === false)
    const inbox = (e: RequestEntry) => ({ id: e.id, inboxOwnerToken: e.inboxOwnerToken })
    if (kind === 'upload') {
      const owned = this.ledger.uploads.filter((e) => e.ownerToken)
      await this.settle(owned, 'deleted', (e) => deleteFile(api, e.id, e.ownerToken!))
    } else if (kind === 'note') {
      await this.settle(this.ledger.notes, 'deleted', (e) => deleteNote(api, e.id, e.ownerToken))
    } else if (kind === 'close') {
      await this.settle(requests, 'closed', (e) => closeInbox(api, inbox(e)))
    } else {
      await this.settle(requests, 'deleted', (e) => deleteInbox(api, inbox(e)))
    }
  }

  /**
   * Sets `flag` on one of `entries` not yet marked, through `act`: unknown (null) while its answer
   * is awaited, true once it came (404 and 410 saying a first try went through), and left unknown
   * when it failed.
   */
  private async settle<E extends Settled>(
    entries: readonly E[],
    flag: keyof Settled,
    act: (entry: E) => Promise<unknown>,
  ): Promise<void> {
    const open = entries.filter((e) => e.deleted === false && e[flag] === false)
    if (open.length === 0) return
    const entry = this.random.pick(open)
    entry[flag] = null
    await act(entry).catch(settleGone)
    entry[flag] = true
  }
}

/**
 * A fetch that fails the storage's refusals (a presigned URL's answer) with an error of their own:
 * the download was counted by then, so a 404 from the storage is not the item being gone.
 */
export function storageAnswersApart(serviceUrl: string): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init)
    const url = input instanceof Request ? input.url : String(input)
    if (response.ok || url.startsWith(serviceUrl)) return response
    const text = (await response.text().catch(() => '')).slice(0, 200)
    throw new Error(`the storage answered ${response.status} to a counted download: ${text}`)
  }
}

/** What the workload's deletes and closes mark on the ledger's entries. */
interface Settled {
  deleted: boolean | null
  closed?: boolean | null
}

/** A delete answered 404 or 410 found the item gone already (its first try went through). */
function settleGone(error: unknown): void {
  if (!gone(error)) throw error
}

/** The payload as a source the clients read from any offset (a resume sends from there). */
export function sourceOf(payload: PseudoRandomPayload): PayloadSource {
  const from = (offset: number) =>
    Readable.toWeb(Readable.from(payload.pieces(offset))) as ReadableStream<Uint8Array>
  return { size: payload.size, stream: () => from(0), streamFrom: from }
}

/**
 * One counted read of an item whose bytes must have digest `expected` (or one of them): a
 * complete read with other bytes is a violation, one that breaks off a failure a fault explains.
 */
export async function readCounted(
  ledger: Ledger,
  what: string,
  reads: Reads,
  expected: string | ReadonlySet<string>,
  open: () => Promise<ReadableStream<Uint8Array>>,
): Promise<void> {
  let digest: string
  try {
    digest = await digestStream(await open())
  } catch (error) {
    if (!gone(error)) reads.failed++
    throw error
  }
  reads.completed++
  const matches = typeof expected === 'string' ? digest === expected : expected.has(digest)
  if (!matches) ledger.violate('byte-exact', `${what} read back other bytes`)
}

/** One view of a note, checked against its digest as `readCounted` checks a download. */
export async function viewCounted(
  ledger: Ledger,
  api: ApiClient,
  linkText: string,
  reads: Reads,
  digest: string,
): Promise<void> {
  const link = parseLink(linkText).link as FileLink
  let text: string
  try {
    const unlocked = await unlockNote(api, link, await inspectNote(api, link))
    text = (await viewNote(api, unlocked)).text
  } catch (error) {
    if (!gone(error)) reads.failed++
    throw error
  }
  reads.completed++
  if (digestOf(text) !== digest)
    ledger.violate('byte-exact', `note ${link.id} read back other text`)
}

async function digestStream(stream: ReadableStream<Uint8Array>): Promise<string> {
  const hash = createHash('sha256')
  const reader = stream.getReader()
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return hash.digest('hex')
    hash.update(value)
  }
}
