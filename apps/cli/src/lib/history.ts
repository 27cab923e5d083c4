/**
 * What this machine created: uploads, notes and file requests, with their links and owner tokens,
 * in `history.json` (0600) of the config folder. `fileshare ls` lists it, `fileshare delete` takes
 * the owner token from it. The owner tokens are kept nowhere else. Uploads still under way keep
 * what resuming them takes there too (`unfinished`), with their record tags beside it
 * (seal-tags.ts), until they end.
 */
import { join } from 'node:path'

import type {
  FileUploadState,
  RequestUploadState,
  SealKeeper,
  SourceFingerprint,
} from '@fileshare/protocol'

import { configDir, ensureConfigDir, readJsonFile, updateJsonFile } from './config-dir.js'
import { UsageError } from './errors.js'
import { dropSealTags, readSealTags, writeSealTags } from './seal-tags.js'

export const HISTORY_FILE = 'history.json'

interface BaseEntry {
  id: string
  /** The server's base address. */
  server: string
  createdAt: string
}

export interface FileHistoryEntry extends BaseEntry {
  kind: 'file'
  link: string
  /** The file's name, or a summary of what an archive holds. */
  name: string
  /** Plaintext bytes. */
  size: number
  fileCount: number
  expiresAt: string
  maxDownloads: number
  ownerToken: string
}

export interface NoteHistoryEntry extends BaseEntry {
  kind: 'note'
  link: string
  contentType: string
  expiresAt: string
  maxViews: number
  ownerToken: string
}

export interface RequestHistoryEntry extends BaseEntry {
  kind: 'request'
  uploadLink: string
  inboxLink: string
  closesAt: string
  maxUploads: number
  inboxOwnerToken: string
}

export type HistoryEntry = FileHistoryEntry | NoteHistoryEntry | RequestHistoryEntry

/** What every unfinished upload records, whatever its kind. */
export interface UnfinishedBase {
  id: string
  server: string
  createdAt: string
  /** The sources' absolute paths as given to `send`, in order. */
  sources: string[]
  /** What the sources were when the upload began; checked before every resume. */
  fingerprint: SourceFingerprint
}

/**
 * An upload the server has named and that has not ended: what `fileshare send --resume` needs.
 * It holds the upload's secret, as a link does; a password-protected upload holds only what the
 * password protects, and neither its secret nor its owner token.
 */
export interface UnfinishedFileUpload extends UnfinishedBase {
  kind: 'file'
  /** Absent for a password-protected upload: derived again from the password. */
  ownerToken?: string
  /** Session, salt, declared size; the secret and owner token, or the password lock. */
  state: FileUploadState
  /** The settings the upload was started with. */
  options: { expireSec: number; maxDownloads: number; websocket: boolean }
}

/** An unfinished upload into a file request (`fileshare request send`). */
export interface UnfinishedRequestUpload extends UnfinishedBase {
  kind: 'request'
  /** The upload link, which opens the request again. */
  uploadLink: string
  requestId: string
  /** Session, secret, salt, declared size. */
  state: RequestUploadState
  /** The note to send after the files, if any. */
  options: { websocket: boolean; note?: string }
}

export type UnfinishedUpload = UnfinishedFileUpload | UnfinishedRequestUpload

interface HistoryFile {
  version: 1
  entries: HistoryEntry[]
  unfinished: UnfinishedUpload[]
}

const KINDS = new Set(['file', 'note', 'request'])

function parse(value: unknown): HistoryFile {
  const { entries, unfinished } = (value ?? {}) as { entries?: unknown; unfinished?: unknown }
  return {
    version: 1,
    unfinished: Array.isArray(unfinished)
      ? unfinished.filter(
          (u): u is UnfinishedUpload =>
            typeof u === 'object' &&
            u !== null &&
            KINDS.has((u as UnfinishedUpload).kind) &&
            typeof (u as UnfinishedUpload).id === 'string' &&
            typeof (u as UnfinishedUpload).server === 'string' &&
            typeof (u as UnfinishedUpload).state === 'object' &&
            Array.isArray((u as UnfinishedUpload).sources),
        )
      : [],
    entries: (Array.isArray(entries) ? entries : []).filter(
      (e): e is HistoryEntry =>
        typeof e === 'object' &&
        e !== null &&
        KINDS.has((e as HistoryEntry).kind) &&
        typeof (e as HistoryEntry).id === 'string' &&
        typeof (e as HistoryEntry).server === 'string',
    ),
  }
}

const LINK_ID =
  /\/[dnri]\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[/?#]|$)/

/** Whether a query names the entry: its id, one of its links, or the start of its id (4+ chars). */
function matches(entry: { id: string }, query: string): boolean {
  const q = LINK_ID.exec(query)?.[1] ?? query.trim().toLowerCase()
  if (entry.id === q) return true
  return q.length >= 4 && /^[0-9a-f-]+$/.test(q) && entry.id.startsWith(q)
}

export class History {
  readonly path: string

  constructor(private readonly dir = configDir()) {
    this.path = join(dir, HISTORY_FILE)
  }

  async list(): Promise<HistoryEntry[]> {
    return parse(await readJsonFile(this.path)).entries
  }

  add(entry: HistoryEntry): Promise<void> {
    return this.putInto('entries', entry)
  }

  /** Adds `item` to the end of `list`, in place of one with its id. */
  private async putInto(list: 'entries' | 'unfinished', item: { id: string }): Promise<void> {
    await ensureConfigDir(this.dir)
    await updateJsonFile(this.path, (current) => {
      const file = parse(current)
      const kept = (file[list] as { id: string }[]).filter((e) => e.id !== item.id)
      return { ...file, [list]: [...kept, item] }
    })
  }

  /** The one entry a query names; undefined when none, a usage error when several. */
  async find(query: string): Promise<HistoryEntry | undefined> {
    const found = (await this.list()).filter((entry) => matches(entry, query))
    if (found.length > 1) {
      throw new UsageError(`"${query}" matches ${found.length} entries; give more of the id`)
    }
    return found[0]
  }

  /** Removes the entry with this id; answers whether it was there. */
  remove(id: string): Promise<boolean> {
    return this.removeFrom('entries', id)
  }

  private async removeFrom(list: 'entries' | 'unfinished', id: string): Promise<boolean> {
    let removed = false
    await ensureConfigDir(this.dir)
    await updateJsonFile(this.path, (current) => {
      const file = parse(current)
      const kept = (file[list] as { id: string }[]).filter((e) => e.id !== id)
      if (kept.length === file[list].length) return undefined
      removed = true
      return { ...file, [list]: kept }
    })
    return removed
  }

  /** Unfinished uploads, oldest first. */
  async unfinished(): Promise<UnfinishedUpload[]> {
    return parse(await readJsonFile(this.path)).unfinished
  }

  /** Keeps (or replaces) the resume state of an unfinished upload. */
  keepUnfinished(upload: UnfinishedUpload): Promise<void> {
    return this.putInto('unfinished', upload)
  }

  /**
   * The unfinished upload a query names (as `find` matches), or the latest when there is no
   * query; undefined when none.
   */
  async findUnfinished(query?: string): Promise<UnfinishedUpload | undefined> {
    const all = await this.unfinished()
    if (query === undefined) return all.at(-1)
    const found = all.filter((u) => matches(u, query))
    if (found.length > 1) {
      throw new UsageError(
        `"${query}" matches ${found.length} unfinished uploads; give more of the id`,
      )
    }
    return found[0]
  }

  /** Forgets an unfinished upload (it ended) and its record tags; answers whether it was there. */
  async dropUnfinished(id: string): Promise<boolean> {
    const removed = await this.removeFrom('unfinished', id)
    await dropSealTags(this.dir, id)
    return removed
  }

  /** Keeps the record tags of the unfinished upload `id`, synced, as they are sealed. */
  sealKeeper(id: string): SealKeeper {
    return (index, tags) => writeSealTags(this.dir, id, index, tags)
  }

  /** The record tags kept for the unfinished upload `id`; undefined when none were. */
  sealTags(id: string): Promise<Uint8Array | undefined> {
    return readSealTags(this.dir, id)
  }
}

/**
 * Adds an entry after a creation succeeded; a history that cannot be written costs a warning,
 * never the link the user is about to be shown.
 */
export async function record(
  history: History,
  entry: HistoryEntry,
  warn: (line: string) => void,
): Promise<void> {
  try {
    await history.add(entry)
  } catch (error) {
    warn(
      `Could not record ${entry.id} in ${history.path} (${(error as Error).message}); ` +
        '`fileshare delete` will not know it',
    )
  }
}
