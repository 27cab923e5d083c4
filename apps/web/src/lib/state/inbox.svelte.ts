/**
 * The inbox page's state (`/i/:id#…`): opening the link (after its password when it has one),
 * refreshing, each entry's download, note reading and deletion, and closing or deleting the
 * request. The page shows it and wires its buttons to these transitions.
 */
import {
  groupEntries,
  isAbortError,
  isApiError,
  isNoteEntry,
  isProtocolError,
  parseLink,
  submissionsUsed,
  type EntryGroup,
} from '@fileshare/protocol'

import { errorKindOf, errorMessage, lockoutMessage, type ErrorKind } from '../errors'
import { formatBytes } from '../format-bytes'
import { t } from '../i18n/t'
import { dayOf, downloadsLeft, entryName, entryPlainSize, entryType } from '../requests/inbox-entry'
import { sanitizeFileName } from '../save/file-name'
import { collectBlob, saveBlob } from '../save/blob'
import { pickSaveFolder, type SaveFolder } from '../save/folder'
import {
  blobTooLarge,
  BLOB_SAVE_LIMIT,
  detectSaveMethod,
  saveDownload,
  type SaveMethod,
} from '../save/save'
import {
  closeInbox,
  deleteInbox,
  deleteInboxFile,
  downloadInboxFile,
  openInbox,
  release,
  type InboxEntryView,
  type InboxView,
  type RangedFile,
} from '../worker/client'
import type { DownloadProgress } from '../worker/methods'
import type { PreviewPlan } from '../preview/preview-kind'
import { historyTime, type HistoryStatus } from './history-store'
import { historyKey, setHistoryStatus } from './history.svelte'

export type InboxPhase =
  | { name: 'checking' }
  | { name: 'failed'; kind: ErrorKind; message: string; retryAfterSec: number | null }
  | { name: 'locked' }
  | { name: 'open' }
  | { name: 'deleted' }

/** One listed upload's row: its download or reading, its deletion, and what it last said. */
export interface EntryState {
  status: 'idle' | 'downloading' | 'confirm' | 'deleting'
  received: number
  total: number
  message: string | null
  error: boolean
  /** A sender's note, once read. */
  text: string | null
  /** A file opened on the page (lib/preview); saving takes this copy, counting nothing. */
  opened: Blob | null
}

/** Closing or deleting the whole request, each asked first. */
export type ManageStep = 'idle' | 'confirmClose' | 'closing' | 'confirmDelete' | 'deleting'

export interface Notice {
  text: string
  error: boolean
}

export class InboxPage {
  phase = $state<InboxPhase>({ name: 'checking' })
  password = $state('')
  unlocking = $state(false)
  passwordError = $state<string | null>(null)
  inbox = $state<InboxView | null>(null)
  refreshing = $state(false)
  savingAll = $state(false)
  saveMethod = $state<SaveMethod | null>(null)
  /** Row state by entry id; every listed entry has one before it is shown. */
  entries = $state<Record<string, EntryState>>({})
  manage = $state<ManageStep>('idle')
  notice = $state<Notice | null>(null)

  /** The worker's handle on the opened inbox (its keys stay in the worker). */
  #handle = $state<string | null>(null)

  /** What one sender sent as one entry: files with the note that came with them. */
  readonly groups = $derived(this.inbox ? groupEntries(this.inbox.entries) : [])
  /** Files that can still be downloaded (a sender's note is read on the page instead). */
  readonly downloadable = $derived(
    this.inbox ? this.inbox.entries.filter((e) => !isNoteEntry(e) && downloadsLeft(e) > 0) : [],
  )
  readonly used = $derived(
    this.inbox
      ? submissionsUsed({ ...this.inbox, acceptsNote: this.inbox.brief.acceptsNote })
      : { used: 0, max: 0 },
  )
  readonly expired = $derived(this.inbox !== null && Date.parse(this.inbox.closesAt) <= Date.now())
  /** Leaving would stop the downloads under way. */
  readonly downloading = $derived(
    Object.values(this.entries).some((s) => s.status === 'downloading'),
  )

  constructor(private readonly href: string) {}

  /** Opens the link, or asks for its password first; what it returns releases the keys. */
  start(): () => void {
    let protectedLink: boolean | null = null
    try {
      const { link } = parseLink(this.href)
      protectedLink = link.kind === 'inbox' && link.passwordSalt !== undefined
    } catch (error) {
      this.#fail(error)
    }
    if (protectedLink) this.phase = { name: 'locked' }
    else if (protectedLink === false) this.#open().catch((error) => this.#fail(error))
    return () => {
      if (this.#handle) void release(this.#handle).catch(() => undefined)
    }
  }

  /** Tries the password: a wrong one or a lockout is said at the field, anything else fails. */
  async unlock(): Promise<void> {
    if (this.unlocking || this.password === '') return
    this.unlocking = true
    this.passwordError = null
    try {
      await this.#open(this.password)
    } catch (error) {
      const kind = errorKindOf(error)
      if (isProtocolError(error, 'WRONG_PASSWORD')) this.passwordError = t('error.wrongPassword')
      else if (isApiError(error, 429)) this.passwordError = lockoutMessage(error.retryAfterSec)
      else if (kind === 'generic' || kind === 'network') this.passwordError = errorMessage(error)
      else this.#fail(error)
    } finally {
      this.unlocking = false
    }
  }

  /** Reads the inbox again; a failure is a notice and keeps what is shown. */
  async refresh(): Promise<void> {
    if (this.refreshing) return
    this.refreshing = true
    this.notice = null
    try {
      await this.#open(this.password || undefined)
    } catch (error) {
      this.notice = { text: errorMessage(error), error: true }
    } finally {
      this.refreshing = false
    }
  }

  entry(id: string): EntryState {
    return this.entries[id]!
  }

  nameOf(entry: InboxEntryView): string {
    return entryName(entry, {
      fallback: t('download.unnamed'),
      archiveName: t('inbox.entry.archiveName', { date: dayOf(entry.createdAt) }),
    })
  }

  /** Saves one upload where the browser can (straight from the click, for its user gesture). */
  async download(entry: InboxEntryView): Promise<void> {
    const method = this.saveMethod
    if (!this.#handle || !method) return
    const state = this.entry(entry.id)
    const name = this.nameOf(entry)
    const size = entryPlainSize(entry)
    state.message = null
    state.error = false
    if (blobTooLarge(method, size)) {
      const limit = formatBytes(BLOB_SAVE_LIMIT)
      state.message = t('download.blobTooLarge', { size: formatBytes(size), limit })
      state.error = true
      return
    }
    const handle = this.#handle
    try {
      await saveDownload(method, { name, type: entryType(entry) }, async (sink) => {
        const onProgress = this.#startProgress(state, size)
        const result = await downloadInboxFile(handle, entry.id, { onProgress, sink })
        this.#countDownload(entry)
        return result
      })
      state.message = t('inbox.entry.downloaded', { name })
    } catch (error) {
      if (isAbortError(error)) {
        state.message = null
      } else {
        state.message = t('inbox.entry.downloadFailed', { name, message: errorMessage(error) })
        state.error = true
      }
    } finally {
      state.status = 'idle'
    }
  }

  /**
   * Every downloadable file into one folder picked once (where the browser can write into a
   * folder), one after the other; a file that fails is said so at its entry and the rest go on.
   */
  async downloadAll(): Promise<void> {
    if (!this.#handle || this.savingAll) return
    const handle = this.#handle
    const entries = this.downloadable
    let folder: SaveFolder
    try {
      // Straight from the click: the folder picker needs the click's user gesture.
      folder = await pickSaveFolder()
    } catch (error) {
      if (!isAbortError(error)) {
        const text = t('inbox.downloadAllFailed', { message: errorMessage(error) })
        this.notice = { text, error: true }
      }
      return
    }
    this.savingAll = true
    this.notice = null
    let saved = 0
    try {
      for (const entry of entries) {
        if (await this.#saveInto(folder, handle, entry)) saved++
      }
    } finally {
      this.savingAll = false
    }
    this.notice = {
      text: t('inbox.downloadAllDone', { count: saved, total: entries.length }),
      error: saved < entries.length,
    }
  }

  /** Reads a sender's note onto the page. */
  async readNote(entry: InboxEntryView): Promise<void> {
    const text = await this.#readWhole(entry, t('inbox.note.title'), (stream) =>
      new Response(stream).text(),
    )
    if (text !== null) this.entry(entry.id).text = text
  }

  /** Counts one download of a file and keeps it on the page to show it as `plan` says. */
  async open(entry: InboxEntryView, plan: PreviewPlan): Promise<void> {
    const content = await this.#readWhole(entry, this.nameOf(entry), (stream) =>
      collectBlob(stream, plan.type),
    )
    if (content !== null) this.entry(entry.id).opened = content
  }

  /** Saves the copy opened on the page: no second download. */
  saveOpened(entry: InboxEntryView): void {
    const state = this.entry(entry.id)
    if (!state.opened) return
    const name = sanitizeFileName(this.nameOf(entry), t('download.unnamed'))
    saveBlob(state.opened, name)
    state.message = t('inbox.entry.downloaded', { name })
    state.error = false
  }

  /**
   * Counts one download of `entry` and reads all of it onto the page with `read`; answers null
   * when that failed, which the entry then says under `name`.
   */
  async #readWhole<T>(
    entry: InboxEntryView,
    name: string,
    read: (stream: ReadableStream<Uint8Array>) => Promise<T>,
  ): Promise<T | null> {
    if (!this.#handle) return null
    const state = this.entry(entry.id)
    state.message = null
    state.error = false
    const onProgress = this.#startProgress(state, entryPlainSize(entry))
    try {
      const result = await downloadInboxFile(this.#handle, entry.id, { onProgress })
      this.#countDownload(entry)
      const value = await read(result.stream)
      await result.finished
      return value
    } catch (error) {
      state.message = t('inbox.entry.downloadFailed', { name, message: errorMessage(error) })
      state.error = true
      return null
    } finally {
      state.status = 'idle'
    }
  }

  askRemove(id: string): void {
    const state = this.entry(id)
    if (state.status === 'idle') state.status = 'confirm'
  }

  cancelRemove(id: string): void {
    const state = this.entry(id)
    if (state.status === 'confirm') state.status = 'idle'
  }

  /** Deletes an upload together with the note that came with it. */
  async remove(group: EntryGroup<InboxEntryView>, name: string): Promise<void> {
    const inbox = this.inbox
    if (!inbox) return
    const state = this.entry(group.entry.id)
    state.status = 'deleting'
    try {
      const ids = group.note ? [group.entry.id, group.note.id] : [group.entry.id]
      for (const id of ids) await deleteInboxFile(inbox, id)
      inbox.entries = inbox.entries.filter((e) => !ids.includes(e.id))
      this.notice = { text: t('inbox.entry.deleted', { name }), error: false }
    } catch (error) {
      state.message = t('inbox.entry.deleteFailed', { name, message: errorMessage(error) })
      state.error = true
      state.status = 'idle'
    }
  }

  askManage(step: 'confirmClose' | 'confirmDelete'): void {
    if (this.manage === 'idle') this.manage = step
  }

  cancelManage(): void {
    if (this.manage === 'confirmClose' || this.manage === 'confirmDelete') this.manage = 'idle'
  }

  /** Closes the request to further uploads; this browser's history says so too. */
  async closeRequest(): Promise<void> {
    const inbox = this.inbox
    if (!inbox) return
    this.manage = 'closing'
    try {
      await closeInbox(inbox)
      inbox.open = false
      this.notice = { text: t('inbox.closedDone'), error: false }
      this.#recordInHistory({ state: 'available', open: false })
    } catch (error) {
      this.notice = { text: t('inbox.closeFailed', { message: errorMessage(error) }), error: true }
    } finally {
      this.manage = 'idle'
    }
  }

  /** Deletes the request and everything in it; this browser's history marks it gone. */
  async deleteRequest(): Promise<void> {
    const inbox = this.inbox
    if (!inbox) return
    this.manage = 'deleting'
    try {
      await deleteInbox(inbox)
      this.#recordInHistory({ state: 'gone' })
      this.phase = { name: 'deleted' }
    } catch (error) {
      this.notice = { text: t('inbox.deleteFailed', { message: errorMessage(error) }), error: true }
    } finally {
      this.manage = 'idle'
    }
  }

  async #open(password?: string): Promise<void> {
    const view = await openInbox(this.href, password)
    const previous = this.#handle
    this.#handle = view.handle
    for (const entry of view.inbox.entries) this.entries[entry.id] ??= idleEntry()
    this.inbox = view.inbox
    if (previous) void release(previous).catch(() => undefined)
    this.phase = { name: 'open' }
    this.saveMethod ??= await detectSaveMethod().catch(() => 'blob' as const)
  }

  /** Tells this browser's history what became of the request. */
  #recordInHistory(status: Omit<HistoryStatus, 'checkedAt'>): void {
    if (!this.inbox) return
    const key = historyKey({ kind: 'request', id: this.inbox.id })
    void setHistoryStatus(key, { ...status, checkedAt: historyTime() })
  }

  #fail(error: unknown): void {
    this.phase = {
      name: 'failed',
      kind: errorKindOf(error),
      message: errorMessage(error),
      retryAfterSec: isApiError(error) ? error.retryAfterSec : null,
    }
  }

  /** One file of "download all"; answers whether it was saved. */
  async #saveInto(folder: SaveFolder, handle: string, entry: InboxEntryView): Promise<boolean> {
    const state = this.entry(entry.id)
    if (state.status !== 'idle') return false
    const name = sanitizeFileName(this.nameOf(entry), t('download.unnamed'))
    state.message = null
    state.error = false
    const onProgress = this.#startProgress(state, entryPlainSize(entry))
    let writable: WritableStream<Uint8Array> | undefined
    try {
      const file = await folder.create(name)
      writable = file.writable
      const result = await downloadInboxFile(handle, entry.id, { onProgress })
      this.#countDownload(entry)
      const written = result.stream.pipeTo(file.writable)
      writable = undefined
      await Promise.all([written, result.finished])
      state.message = t('inbox.entry.downloaded', { name: file.name })
      return true
    } catch (error) {
      // Aborted, the half-written file is dropped.
      await writable?.abort(error).catch(() => undefined)
      state.message = t('inbox.entry.downloadFailed', { name, message: errorMessage(error) })
      state.error = true
      return false
    } finally {
      state.status = 'idle'
    }
  }

  /** Marks an entry as downloading `size` bytes; what it returns follows the download. */
  #startProgress(state: EntryState, size: number): (p: DownloadProgress) => void {
    state.status = 'downloading'
    state.received = 0
    state.total = size
    return (p) => {
      state.received = p.receivedBytes
      state.total = p.totalBytes
    }
  }

  /** Counts a download here too, so the page agrees with the server without a reload. */
  /**
   * An entry as the transfer worker reads it in ranges (media and archive previews), or null
   * before the inbox is open. Follows the inbox's handle, which a refresh replaces.
   */
  rangedFile(entry: InboxEntryView): RangedFile | null {
    return this.#handle === null ? null : { inbox: this.#handle, entryId: entry.id }
  }

  /** A preview that read the entry in ranges has counted one download of it. */
  counted(entry: InboxEntryView): void {
    this.#countDownload(entry)
  }

  #countDownload(entry: InboxEntryView): void {
    const inbox = this.inbox
    if (!inbox) return
    inbox.entries = inbox.entries.map((e) =>
      e.id === entry.id ? { ...e, downloadCount: e.downloadCount + 1 } : e,
    )
  }
}

function idleEntry(): EntryState {
  return {
    status: 'idle',
    received: 0,
    total: 0,
    message: null,
    error: false,
    text: null,
    opened: null,
  }
}
