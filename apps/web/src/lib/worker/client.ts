/**
 * The page's typed handle on the worker: each client-core call as an async function with an
 * optional progress callback and AbortSignal. The worker starts on the first call, so pages that
 * never need it (and the upload page until "Upload" is pressed) do not load it.
 */
import { deferred } from '@fileshare/protocol'
import type {
  CreatedFileRequest,
  CreatedNote,
  CreateFileRequestOptions,
  CreateNoteOptions,
  FileUploadState,
  NoteInfoResponse,
  OpenedRequest,
  RequestUploadState,
  SentFile,
  SentToRequest,
  UploadInfoResponse,
  UploadProgress,
  ViewedNote,
} from '@fileshare/protocol'

import { reviveError, type FromWorker, type ToWorker } from './messages'
import type {
  CallContext,
  DownloadProgress,
  InboxTarget,
  OpenedArchiveView,
  OpenedInboxView,
  OpenedRanges,
  RangedFile,
  SendFilesInput,
  SendToRequestInput,
  UnlockedFileView,
  UploadEvent,
  WorkerMethods,
} from './methods'
import { plain } from './snapshot.svelte'
import { observeStream, portToStream } from './streams'

export type {
  DownloadProgress,
  InboxEntryView,
  InboxTarget,
  InboxView,
  OpenedArchiveView,
  OpenedInboxView,
  OpenedRanges,
  RangedFile,
  SendFilesInput,
  SendToRequestInput,
  UnlockedFileView,
  UploadEvent,
} from './methods'

export interface CallOptions<P = never> {
  onProgress?: (progress: P) => void
  signal?: AbortSignal
}

/** A download on its way: the plaintext, and how its reading ended. */
export interface Download {
  /** Plaintext; errors with ProtocolError DECRYPT_FAILED or TRUNCATED on tampered data. */
  stream: ReadableStream<Uint8Array>
  /** Resolves when `stream` has been read to its end; rejects with the error that ended it. */
  finished: Promise<void>
  plainSize: number
  fileCount: number
}

/**
 * A download whose plaintext the worker sends straight into a port the caller gave it (the
 * service worker's end of a channel), so it crosses one thread boundary instead of two.
 */
export interface DeliveredDownload {
  /**
   * Resolves once the last byte went into the port; rejects with the error that ended the
   * plaintext (DECRYPT_FAILED, TRUNCATED, NETWORK), or an AbortError when the reader cancelled.
   */
  finished: Promise<void>
  plainSize: number
  fileCount: number
}

export interface DownloadOptions extends CallOptions<DownloadProgress> {
  /** Where the plaintext goes instead of to the page (transferred to the worker). */
  sink?: MessagePort | undefined
}

type Method = keyof WorkerMethods
type Args<K extends Method> = WorkerMethods[K] extends (
  ctx: CallContext,
  ...args: infer A
) => Promise<unknown>
  ? A
  : never
type Result<K extends Method> = Awaited<ReturnType<WorkerMethods[K]>>

interface Pending {
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
  onProgress?: ((value: never) => void) | undefined
  /**
   * For a call whose plaintext goes to a sink: told how the plaintext ended. The call stays
   * here after its result until then, as progress and cancellation last that long.
   */
  end?: ((error?: unknown) => void) | undefined
}

let worker: Worker | undefined
let nextId = 1
const pending = new Map<number, Pending>()

function reviveStreams(value: unknown, portKeys: readonly string[] = []): unknown {
  if (portKeys.length === 0) return value
  const copy = { ...(value as Record<string, unknown>) }
  for (const key of portKeys) copy[key] = portToStream(copy[key] as MessagePort)
  return copy
}

function start(): Worker {
  if (worker) return worker
  const started = new Worker(new URL('./worker.ts', import.meta.url), {
    type: 'module',
    name: 'fileshare',
  })
  started.onmessage = (event: MessageEvent<FromWorker>) => {
    const message = event.data
    const call = pending.get(message.id)
    if (!call) return
    switch (message.type) {
      case 'progress':
        call.onProgress?.(message.value as never)
        return
      case 'result':
        if (!call.end) pending.delete(message.id)
        call.resolve(reviveStreams(message.value, message.portStreams))
        return
      case 'error':
        pending.delete(message.id)
        call.reject(reviveError(message.error))
        return
      case 'end':
        // Only a call with a sink has an end; its answer came first.
        if (!call.end) return
        pending.delete(message.id)
        call.end(message.error ? reviveError(message.error) : undefined)
    }
  }
  started.onerror = (event) => {
    // The worker script failed to load or crashed: every call waiting on it fails, whether it
    // waits for its answer or for the end of its plaintext.
    event.preventDefault()
    const error = new Error(event.message || 'The background worker stopped')
    for (const call of pending.values()) {
      call.reject(error)
      call.end?.(error)
    }
    pending.clear()
    worker = undefined
    started.terminate()
  }
  worker = started
  return started
}

function call<K extends Method, P = never>(
  method: K,
  args: Args<K>,
  options: CallOptions<P> = {},
  sink?: { port: MessagePort; end: (error?: unknown) => void },
): Promise<Result<K>> {
  const { signal, onProgress } = options
  if (signal?.aborted) return Promise.reject(signal.reason)
  const target = start()
  const id = nextId++
  return new Promise<Result<K>>((resolve, reject) => {
    const onAbort = () => target.postMessage({ type: 'abort', id } satisfies ToWorker)
    signal?.addEventListener('abort', onAbort, { once: true })
    const done = () => signal?.removeEventListener('abort', onAbort)
    const entry: Pending = {
      resolve: (value) => {
        // A plaintext still on its way to the sink can be cancelled until its end.
        if (!sink) done()
        resolve(value as Result<K>)
      },
      reject: (error) => {
        done()
        reject(error)
      },
      onProgress: onProgress as ((value: never) => void) | undefined,
    }
    if (sink) {
      entry.end = (error) => {
        done()
        sink.end(error)
      }
    }
    pending.set(id, entry)
    try {
      const message: ToWorker = { type: 'call', id, method, args: plain(args) }
      if (sink) message.sink = sink.port
      target.postMessage(message, sink ? [sink.port] : [])
    } catch (error) {
      pending.delete(id)
      done()
      reject(error)
    }
  })
}

type DownloadAnswer = Promise<{
  stream: ReadableStream<Uint8Array>
  plainSize: number
  fileCount: number
}>

async function asDownload(result: DownloadAnswer): Promise<Download> {
  const { stream, plainSize, fileCount } = await result
  const observed = observeStream(stream)
  return { stream: observed.stream, finished: observed.finished, plainSize, fileCount }
}

/** Calls a download method with `port` as its sink; `finished` settles on the worker's `end`. */
async function delivered(
  port: MessagePort,
  run: (sink: { port: MessagePort; end: (error?: unknown) => void }) => DownloadAnswer,
): Promise<DeliveredDownload> {
  const finished = deferred<void>()
  const end = (error?: unknown) =>
    error === undefined ? finished.resolve() : finished.reject(error)
  const { plainSize, fileCount } = await run({ port, end })
  return { finished: finished.promise, plainSize, fileCount }
}

/** A download call: its plaintext to the page, or with `sink` straight into that port. */
function download<K extends 'downloadFile' | 'downloadInboxFile' | 'openArchiveEntry'>(
  method: K,
  args: Args<K>,
  options: DownloadOptions,
): Promise<Download | DeliveredDownload> {
  const { sink, ...rest } = options
  if (!sink) return asDownload(call(method, args, rest))
  return delivered(sink, (to) => call(method, args, rest, to))
}

/** Encrypts and uploads the picked entries (one file, or a ZIP of several). */
export function sendFiles(
  input: SendFilesInput,
  options?: CallOptions<UploadProgress | UploadEvent>,
): Promise<SentFile> {
  return call('sendFiles', [input], options)
}

/** Continues a kept upload (`state`) with the same picked entries, then finishes it. */
export function resumeFiles(
  input: SendFilesInput,
  state: FileUploadState,
  options?: CallOptions<UploadProgress | UploadEvent>,
): Promise<SentFile> {
  return call('resumeFiles', [input, state], options)
}

/** Public info of a file link; counts nothing. */
export function inspectFile(href: string): Promise<UploadInfoResponse> {
  return call('inspectFile', [href])
}

/** Unlocks a file link (with its password when it has one); the keys stay in the worker. */
export function unlockFile(
  href: string,
  info: UploadInfoResponse,
  password?: string,
): Promise<UnlockedFileView> {
  return call('unlockFile', password ? [href, info, password] : [href, info])
}

/**
 * Counts one download and streams the decrypted payload: to the page, or with `sink` straight
 * into that port.
 */
export function downloadFile(
  handle: string,
  options?: CallOptions<DownloadProgress>,
): Promise<Download>
export function downloadFile(
  handle: string,
  options?: DownloadOptions,
): Promise<Download | DeliveredDownload>
export function downloadFile(
  handle: string,
  options: DownloadOptions = {},
): Promise<Download | DeliveredDownload> {
  return download('downloadFile', [handle], options)
}

/**
 * Counts one download of an archive and lists its entries, read by range; `handle` of the answer
 * then reads single entries without counting again while the read grant lasts.
 */
export function openArchive(target: RangedFile): Promise<OpenedArchiveView> {
  return call('openArchive', [plain(target)])
}

/**
 * One entry of an opened archive, fetched and checked alone: to the page, or with `sink`
 * straight into that port. An ApiError 410 `Read grant expired` once the grant has lapsed.
 */
export function openArchiveEntry(
  archiveHandle: string,
  index: number,
  options?: DownloadOptions,
): Promise<Download | DeliveredDownload> {
  return download('openArchiveEntry', [archiveHandle, index], options ?? {})
}

/**
 * Counts one download of an unlocked file or an inbox entry and opens it for reading in ranges
 * under its read grant; `release` the answered handle when done.
 */
export function openRanges(target: RangedFile): Promise<OpenedRanges> {
  return call('openRanges', [plain(target)])
}

/**
 * Sends plaintext bytes `start` up to `end` (exclusive) of opened ranges into `sink` as they are
 * decrypted. Resolves once the last byte went in; rejects with the error that ended them, or an
 * AbortError when the reader cancelled.
 */
export async function readRange(
  handle: string,
  start: number,
  end: number,
  sink: MessagePort,
): Promise<void> {
  const finished = deferred<void>()
  const settle = (error?: unknown) =>
    error === undefined ? finished.resolve() : finished.reject(error)
  await call('readRange', [handle, start, end], {}, { port: sink, end: settle })
  return finished.promise
}

export function deleteFile(id: string, ownerToken: string): Promise<void> {
  return call('deleteFile', [id, ownerToken])
}

export function createNote(options: CreateNoteOptions): Promise<CreatedNote> {
  return call('createNote', [options])
}

/** Public info of a note link; consumes no view. */
export function inspectNote(href: string): Promise<NoteInfoResponse> {
  return call('inspectNote', [href])
}

/** Unlocks a note link (password checked without consuming a view). */
export function unlockNote(
  href: string,
  info: NoteInfoResponse,
  password?: string,
): Promise<{ handle: string }> {
  return call('unlockNote', password ? [href, info, password] : [href, info])
}

/** Consumes one view and returns the decrypted note. */
export function viewNote(handle: string): Promise<ViewedNote> {
  return call('viewNote', [handle])
}

export function deleteNote(id: string, ownerToken: string): Promise<void> {
  return call('deleteNote', [id, ownerToken])
}

export function createFileRequest(options: CreateFileRequestOptions): Promise<CreatedFileRequest> {
  return call('createFileRequest', [options])
}

/** Reads a request as a sender (decrypts its message). */
export function openRequest(href: string): Promise<OpenedRequest> {
  return call('openRequest', [href])
}

/** Encrypts and uploads the picked entries into the request, resuming lost connections. */
export function sendToRequest(
  opened: OpenedRequest,
  input: SendToRequestInput,
  options?: CallOptions<UploadProgress | UploadEvent<RequestUploadState>>,
): Promise<SentToRequest> {
  return call('sendToRequest', [opened, input], options)
}

/** Continues a kept request upload (`state`) with the same picked entries, then finishes it. */
export function resumeToRequest(
  opened: OpenedRequest,
  input: SendToRequestInput,
  state: RequestUploadState,
  options?: CallOptions<UploadProgress | UploadEvent<RequestUploadState>>,
): Promise<SentToRequest> {
  return call('resumeToRequest', [opened, input, state], options)
}

/** Ends an unfinished upload into a request on the server. */
export function cancelRequestUpload(requestId: string, uploadId: string): Promise<void> {
  return call('cancelRequestUpload', [requestId, uploadId])
}

/** Sends a sender's note; `withUpload` is the id of the files upload it goes with. */
export function sendNoteToRequest(
  opened: OpenedRequest,
  text: string,
  withUpload: string | null,
  options?: CallOptions<UploadProgress>,
): Promise<SentToRequest> {
  return call('sendNoteToRequest', [opened, text, withUpload], options)
}

/** Opens an inbox link (with its password when it has one). */
export function openInbox(href: string, password?: string): Promise<OpenedInboxView> {
  return call('openInbox', password ? [href, password] : [href])
}

export function downloadInboxFile(
  handle: string,
  entryId: string,
  options?: CallOptions<DownloadProgress>,
): Promise<Download>
export function downloadInboxFile(
  handle: string,
  entryId: string,
  options?: DownloadOptions,
): Promise<Download | DeliveredDownload>
export function downloadInboxFile(
  handle: string,
  entryId: string,
  options: DownloadOptions = {},
): Promise<Download | DeliveredDownload> {
  return download('downloadInboxFile', [handle, entryId], options)
}

export function deleteInboxFile(target: InboxTarget, entryId: string): Promise<void> {
  return call('deleteInboxFile', [
    { id: target.id, inboxOwnerToken: target.inboxOwnerToken },
    entryId,
  ])
}

export function closeInbox(target: InboxTarget): Promise<void> {
  return call('closeInbox', [{ id: target.id, inboxOwnerToken: target.inboxOwnerToken }])
}

export function deleteInbox(target: InboxTarget): Promise<void> {
  return call('deleteInbox', [{ id: target.id, inboxOwnerToken: target.inboxOwnerToken }])
}

/** Forgets an unlocked item's keys in the worker. */
export function release(handle: string): Promise<void> {
  return call('release', [handle])
}
