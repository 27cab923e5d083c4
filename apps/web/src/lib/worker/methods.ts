/**
 * The calls the worker answers: thin forwards to the protocol package's client core, plus the
 * two things that cannot cross to the worker as they are: picked files become a payload (one
 * file, or a ZIP of several), and unlocked items (which hold CryptoKeys) stay here behind a handle.
 */
import {
  closeInbox,
  createFileRequest,
  createNote,
  createZipStream,
  deleteFile,
  deleteInbox,
  deleteInboxFile,
  deleteNote,
  downloadFile,
  downloadInboxFile,
  inspectFile,
  inspectNote,
  openFileRanges,
  openInbox,
  openInboxFileRanges,
  openRequest,
  openZipEntry,
  parseLink,
  PATHS,
  ProtocolError,
  readZipDirectory,
  resumeSendFile,
  resumeSendToRequest,
  sendFile,
  sendNoteToRequest,
  sendToRequest,
  unlockFile,
  unlockNote,
  viewNote,
  zipEntryAt,
  zipSize,
  type ApiClient,
  type CreatedFileRequest,
  type CreatedNote,
  type CreateFileRequestOptions,
  type CreateNoteOptions,
  type DownloadResult,
  type FileLink,
  type FileMetadata,
  type FileRanges,
  type FileRangesOptions,
  type FileUploadState,
  type InboxFile,
  type InboxLink,
  type KeptState,
  type NoteInfoResponse,
  type OpenedInbox,
  type OpenedRequest,
  type PayloadSource,
  type ResumeEvent,
  type RequestLink,
  type RequestUploadState,
  type SealKeeper,
  type SentFile,
  type SentToRequest,
  type ShareLink,
  type UnlockedFile,
  type UnlockedNote,
  type UploadInfoResponse,
  type ViewedNote,
  type ZipDirectory,
  type ZipEntryInfo,
} from '@fileshare/protocol'

import {
  fileCountOf,
  metadataOf,
  needsArchive,
  toArchiveEntries,
  type PickedEntry,
} from '../upload/entries'
import { readSealTags, sealTagsKeeper } from '../upload/seal-tags'
import { createWebCipherPool } from './cipher-pool'

/** Per call: cancellation and a progress channel back to the page. */
export interface CallContext {
  signal: AbortSignal
  progress: (value: unknown) => void
  /** Posts at once and in order, never replaced by a later report as progress may be. */
  event: (value: unknown) => void
}

export interface SendFilesInput {
  entries: PickedEntry[]
  expireSec: number
  maxDownloads: number
  /** Empty or absent: no password. */
  password?: string
  /** The fixed zone an archive's times are written in, so a resume writes the same bytes. */
  utcOffsetMinutes: number
}

/** The picked entries a sender sends into a request, and the zone of an archive's times. */
export type SendToRequestInput = Pick<SendFilesInput, 'entries' | 'utcOffsetMinutes'>

/** How long the page keeps resuming one lost connection before the upload fails. */
export const RESUME_RETRY_MS = 5 * 60_000

/**
 * What an upload reports to the page besides its progress: the state to keep once the server
 * has named the upload (a normal upload's, or a request upload's), each lost connection it is
 * about to resume, and each resume.
 */
export type UploadEvent<S = FileUploadState> =
  { kind: 'state'; state: S } | { kind: 'lost' } | { kind: 'resumed'; event: ResumeEvent }

export interface UnlockedFileView {
  handle: string
  metadata: FileMetadata | null
  info: UploadInfoResponse
}

/** The inbox as the page sees it: everything but the per-upload keys, which stay here. */
export type InboxEntryView = Omit<InboxFile, 'keys'>

export interface InboxView extends Omit<OpenedInbox, 'entries'> {
  entries: InboxEntryView[]
}

export interface OpenedInboxView {
  handle: string
  inbox: InboxView
}

/** Identifies a request to manage without opening its inbox (history, inbox page). */
export type InboxTarget = Pick<OpenedInbox, 'id' | 'inboxOwnerToken'>

export interface DownloadProgress {
  receivedBytes: number
  totalBytes: number
}

/** An archive opened in place: its entries, and until when they can be read without counting. */
export interface OpenedArchiveView {
  handle: string
  entries: ZipEntryInfo[]
  /** When the read grant lapses (milliseconds since the epoch), or null when unknown. */
  grantExpiresAt: number | null
}

/** An archive read in place: the ranges under its read grant, and its directory. */
interface OpenedArchive {
  ranges: FileRanges
  directory: ZipDirectory
}

/**
 * A file whose plaintext can be read in ranges: an unlocked upload by its handle, or an entry of
 * an opened inbox by the inbox's handle and the entry's id.
 */
export type RangedFile = { file: string } | { inbox: string; entryId: string }

/** An unlocked file opened for reading in ranges: the handle of its ranges and its size. */
export interface OpenedRanges {
  handle: string
  plainSize: number
}

/**
 * Records one range request asks the server for at most: a media element reads ahead only so
 * far and drops a response when it seeks, so ranges are fetched in pieces as they are read.
 */
const MEDIA_WINDOW_RECORDS = 16

/** The payload, metadata and file count of what the user picked. */
export interface Payload {
  source: PayloadSource
  metadata: FileMetadata
  fileCount: number
}

export function payloadOf(entries: readonly PickedEntry[], utcOffsetMinutes: number): Payload {
  if (entries.length === 0 || fileCountOf(entries) === 0) {
    throw new ProtocolError('BAD_INPUT', 'Nothing to send: pick at least one file')
  }
  const metadata = metadataOf(entries)
  if (!needsArchive(entries)) {
    const file = entries[0]!.file
    if (!file) throw new ProtocolError('BAD_INPUT', 'The picked file cannot be read')
    return { source: file, metadata, fileCount: 1 }
  }
  const archive = toArchiveEntries(entries)
  return {
    source: {
      size: zipSize(archive),
      stream: () => createZipStream(archive, { utcOffsetMinutes }),
      nameAt: (start, end) => zipEntryAt(archive, start, end),
    },
    metadata,
    // Every archive entry counts, so a folder holding one file still reads as an archive.
    fileCount: Math.max(2, archive.length),
  }
}

function linkOf<K extends ShareLink['kind']>(
  href: string,
  kinds: readonly K[],
): Extract<ShareLink, { kind: K }> {
  const { link } = parseLink(href)
  if (!(kinds as readonly string[]).includes(link.kind)) {
    throw new ProtocolError('BAD_LINK', `Invalid link: expected a ${kinds.join(' or ')} link`)
  }
  return link as Extract<ShareLink, { kind: K }>
}

function withoutKeys(inbox: OpenedInbox): InboxView {
  return {
    ...inbox,
    entries: inbox.entries.map(({ keys: _keys, ...entry }) => entry),
  }
}

/** The worker's state: the client, and items unlocked in it by handle. */
export function createMethods(api: ApiClient) {
  const handles = new Map<string, unknown>()
  const keep = (value: unknown) => {
    const handle = crypto.randomUUID()
    handles.set(handle, value)
    return handle
  }
  const take = <T>(handle: string): T => {
    if (!handles.has(handle)) throw new ProtocolError('BAD_INPUT', 'Unknown handle')
    return handles.get(handle) as T
  }
  // Records are sealed and opened in cipher workers, started once a transfer is in view (a file
  // link inspected, a transfer called), so that their start-up overlaps the key derivation and
  // the server's answers instead of leaving the first records to this thread.
  const cipher = createWebCipherPool()
  /** What every upload and download takes from its call: cancel, progress, the record cipher. */
  const transfer = (ctx: CallContext) => {
    cipher.start()
    return { signal: ctx.signal, onProgress: ctx.progress, cipher }
  }
  /**
   * Resuming lost connections, with the page told of the state to keep and of each resume, and
   * the record tags kept in IndexedDB under the upload's id as they are sealed: the id of the
   * kept upload it `continues`, else (and should that one start afresh) the one the server names.
   */
  const resuming = <S extends { session: { id: string } }>(
    ctx: CallContext,
    continues: string | undefined,
  ) => {
    let keeper: SealKeeper | undefined =
      continues === undefined ? undefined : sealTagsKeeper(continues)
    return {
      retryForMs: RESUME_RETRY_MS,
      onState: (state: S) => {
        keeper = sealTagsKeeper(state.session.id)
        ctx.event({ kind: 'state', state } satisfies UploadEvent<S>)
      },
      onSealed: (index: number, tags: Uint8Array) => keeper!(index, tags),
      onConnectionLost: () => ctx.event({ kind: 'lost' } satisfies UploadEvent),
      onResume: (event: ResumeEvent) => ctx.event({ kind: 'resumed', event } satisfies UploadEvent),
    }
  }
  /** A kept upload's state with the record tags kept for it. */
  const keptWithTags = async <S extends { session: { id: string } }>(
    state: S,
  ): Promise<KeptState<S>> => ({ state, sealed: await readSealTags(state.session.id) })
  const fileOptions = (
    ctx: CallContext,
    input: SendFilesInput,
    payload: Payload,
    continues?: string,
  ) => ({
    expireSec: input.expireSec,
    maxDownloads: input.maxDownloads,
    ...(input.password ? { password: input.password } : {}),
    metadata: payload.metadata,
    fileCount: payload.fileCount,
    resume: resuming<FileUploadState>(ctx, continues),
    ...transfer(ctx),
  })
  /** Counts one download of `target` with a read grant and opens its ranges. */
  const openCounted = (target: RangedFile, options: FileRangesOptions) =>
    'file' in target
      ? openFileRanges(api, take<UnlockedFile>(target.file), options)
      : openInboxFileRanges(api, take<OpenedInbox>(target.inbox), target.entryId, options)
  const requestOptions = (ctx: CallContext, payload: Payload, continues?: string) => ({
    metadata: payload.metadata,
    fileCount: payload.fileCount,
    resume: resuming<RequestUploadState>(ctx, continues),
    ...transfer(ctx),
  })

  return {
    async sendFiles(ctx: CallContext, input: SendFilesInput): Promise<SentFile> {
      const payload = payloadOf(input.entries, input.utcOffsetMinutes)
      return sendFile(api, payload.source, fileOptions(ctx, input, payload))
    },

    /**
     * Continues a kept upload with the same entries (the page checked their fingerprint; the
     * record tags kept prove their bytes), or sends them afresh when no tags were kept.
     */
    async resumeFiles(
      ctx: CallContext,
      input: SendFilesInput,
      state: FileUploadState,
    ): Promise<SentFile> {
      const payload = payloadOf(input.entries, input.utcOffsetMinutes)
      const kept = await keptWithTags(state)
      const options = fileOptions(ctx, input, payload, state.session.id)
      return resumeSendFile(api, payload.source, kept, options)
    },

    async inspectFile(_ctx: CallContext, href: string): Promise<UploadInfoResponse> {
      cipher.start()
      return inspectFile(api, linkOf(href, ['file']) as FileLink)
    },

    async unlockFile(
      _ctx: CallContext,
      href: string,
      info: UploadInfoResponse,
      password?: string,
    ): Promise<UnlockedFileView> {
      const link = linkOf(href, ['file']) as FileLink
      const unlocked = await unlockFile(api, link, info, password || undefined)
      return { handle: keep(unlocked), metadata: unlocked.metadata, info: unlocked.info }
    },

    async downloadFile(ctx: CallContext, handle: string): Promise<DownloadResult> {
      return downloadFile(api, take<UnlockedFile>(handle), {
        ...transfer(ctx),
      })
    },

    /**
     * Counts one download of an archive and reads its directory by range under the download's
     * read grant; its entries are then read by `openArchiveEntry` without counting again.
     */
    async openArchive(_ctx: CallContext, target: RangedFile): Promise<OpenedArchiveView> {
      cipher.start()
      const ranges = await openCounted(target, { cipher })
      const directory = await readZipDirectory(ranges)
      return {
        handle: keep({ ranges, directory } satisfies OpenedArchive),
        entries: directory.entries,
        grantExpiresAt: ranges.grantExpiresAt,
      }
    },

    /** One entry's bytes, fetched alone under the archive's read grant. */
    async openArchiveEntry(
      _ctx: CallContext,
      handle: string,
      index: number,
    ): Promise<DownloadResult> {
      const { ranges, directory } = take<OpenedArchive>(handle)
      const entry = directory.entries[index]
      if (!entry) throw new ProtocolError('BAD_INPUT', 'The archive holds no such entry')
      const stream = await openZipEntry(ranges, directory, entry)
      return { stream, plainSize: entry.size, fileCount: 1 }
    },

    /**
     * Counts one download of the file and keeps its read grant: from then on its plaintext is
     * read in ranges (`readRange`) without counting again.
     */
    async openRanges(_ctx: CallContext, target: RangedFile): Promise<OpenedRanges> {
      cipher.start()
      const ranges = await openCounted(target, {
        cipher,
        windowRecords: MEDIA_WINDOW_RECORDS,
      })
      return { handle: keep(ranges), plainSize: ranges.plainSize }
    },

    /** Plaintext bytes `start` up to `end` (exclusive) of opened ranges, decrypted as read. */
    async readRange(
      _ctx: CallContext,
      handle: string,
      start: number,
      end: number,
    ): Promise<{ stream: ReadableStream<Uint8Array> }> {
      return { stream: take<FileRanges>(handle).stream(start, end) }
    },

    async deleteFile(_ctx: CallContext, id: string, ownerToken: string): Promise<void> {
      await deleteFile(api, id, ownerToken)
    },

    async createNote(_ctx: CallContext, options: CreateNoteOptions): Promise<CreatedNote> {
      return createNote(api, options)
    },

    async inspectNote(_ctx: CallContext, href: string): Promise<NoteInfoResponse> {
      return inspectNote(api, linkOf(href, ['note']) as FileLink)
    },

    async unlockNote(
      _ctx: CallContext,
      href: string,
      info: NoteInfoResponse,
      password?: string,
    ): Promise<{ handle: string }> {
      const link = linkOf(href, ['note']) as FileLink
      return { handle: keep(await unlockNote(api, link, info, password || undefined)) }
    },

    async viewNote(_ctx: CallContext, handle: string): Promise<ViewedNote> {
      return viewNote(api, take<UnlockedNote>(handle))
    },

    async deleteNote(_ctx: CallContext, id: string, ownerToken: string): Promise<void> {
      await deleteNote(api, id, ownerToken)
    },

    async createFileRequest(
      _ctx: CallContext,
      options: CreateFileRequestOptions,
    ): Promise<CreatedFileRequest> {
      return createFileRequest(api, options)
    },

    async openRequest(_ctx: CallContext, href: string): Promise<OpenedRequest> {
      return openRequest(api, linkOf(href, ['request']) as RequestLink)
    },

    async sendToRequest(
      ctx: CallContext,
      opened: OpenedRequest,
      input: SendToRequestInput,
    ): Promise<SentToRequest> {
      const payload = payloadOf(input.entries, input.utcOffsetMinutes)
      return sendToRequest(api, opened, payload.source, requestOptions(ctx, payload))
    },

    /** Continues a kept request upload with the same entries (the page checked them). */
    async resumeToRequest(
      ctx: CallContext,
      opened: OpenedRequest,
      input: SendToRequestInput,
      state: RequestUploadState,
    ): Promise<SentToRequest> {
      const payload = payloadOf(input.entries, input.utcOffsetMinutes)
      const kept = await keptWithTags(state)
      const options = requestOptions(ctx, payload, state.session.id)
      return resumeSendToRequest(api, opened, payload.source, kept, options)
    },

    /** Ends an unfinished upload into a request (its id under the request is the credential). */
    async cancelRequestUpload(
      _ctx: CallContext,
      requestId: string,
      uploadId: string,
    ): Promise<void> {
      await api.json('DELETE', PATHS.requestUpload(requestId, uploadId))
    },

    async sendNoteToRequest(
      ctx: CallContext,
      opened: OpenedRequest,
      text: string,
      withUpload: string | null,
    ): Promise<SentToRequest> {
      return sendNoteToRequest(api, opened, text, {
        ...transfer(ctx),
        ...(withUpload === null ? {} : { withUpload }),
      })
    },

    async openInbox(_ctx: CallContext, href: string, password?: string): Promise<OpenedInboxView> {
      const link = linkOf(href, ['inbox']) as InboxLink
      const inbox = await openInbox(api, link, password || undefined)
      return { handle: keep(inbox), inbox: withoutKeys(inbox) }
    },

    async downloadInboxFile(
      ctx: CallContext,
      handle: string,
      entryId: string,
    ): Promise<DownloadResult> {
      return downloadInboxFile(api, take<OpenedInbox>(handle), entryId, {
        ...transfer(ctx),
      })
    },

    async deleteInboxFile(_ctx: CallContext, target: InboxTarget, entryId: string): Promise<void> {
      await deleteInboxFile(api, target, entryId)
    },

    async closeInbox(_ctx: CallContext, target: InboxTarget): Promise<void> {
      await closeInbox(api, target)
    },

    async deleteInbox(_ctx: CallContext, target: InboxTarget): Promise<void> {
      await deleteInbox(api, target)
    },

    /** Lets go of an unlocked item's keys. */
    async release(_ctx: CallContext, handle: string): Promise<void> {
      handles.delete(handle)
    },
  }
}

export type WorkerMethods = ReturnType<typeof createMethods>
