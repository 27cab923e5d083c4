/**
 * What this machine created: uploads, notes and file requests, with their links and owner tokens,
 * in `history.json` (0600) of the config folder. `fileshare ls` lists it, `fileshare delete` takes
 * the owner token from it. The owner tokens are kept nowhere else.
 */
import { join } from 'node:path'

import { configDir, ensureConfigDir, readJsonFile, updateJsonFile } from './config-dir.js'
import { UsageError } from './errors.js'

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

interface HistoryFile {
  version: 1
  entries: HistoryEntry[]
}

const KINDS = new Set(['file', 'note', 'request'])

function parse(value: unknown): HistoryFile {
  const entries = (value as { entries?: unknown } | undefined)?.entries
  if (!Array.isArray(entries)) return { version: 1, entries: [] }
  return {
    version: 1,
    entries: entries.filter(
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
function matches(entry: HistoryEntry, query: string): boolean {
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

  async add(entry: HistoryEntry): Promise<void> {
    await ensureConfigDir(this.dir)
    await updateJsonFile(this.path, (current) => {
      const file = parse(current)
      file.entries = file.entries.filter((e) => e.id !== entry.id)
      file.entries.push(entry)
      return file
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
  async remove(id: string): Promise<boolean> {
    let removed = false
    await ensureConfigDir(this.dir)
    await updateJsonFile(this.path, (current) => {
      const file = parse(current)
      const kept = file.entries.filter((e) => e.id !== id)
      if (kept.length === file.entries.length) return undefined
      removed = true
      return { version: 1, entries: kept }
    })
    return removed
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
