/**
 * The note form's state (`/note`): the kind and its draft, views, expiry and password, sending,
 * and the note just made with its deletion. Views and expiry are the server's preselected
 * choices until one of its options is picked.
 */
import type { CreatedNote, NoteContentType } from '@fileshare/protocol'

import { errorMessage } from '../errors'
import { formatBytes } from '../format-bytes'
import { t, type MessageKey } from '../i18n/t'
import { AUTO } from '../notes/highlight'
import {
  draftProblem,
  isEmptyDraft,
  noteText,
  utf8Length,
  type NoteDrafts,
} from '../notes/note-draft'
import { emptyEntry } from '@fileshare/protocol'
import { createNote, deleteNote } from '../worker/client'
import { config } from './config.svelte'
import { Deletion } from './deletion.svelte'
import { historyTime } from './history-store'
import { addToHistory, historyKey } from './history.svelte'

export const NOTE_TYPES: readonly NoteContentType[] = [
  'text',
  'markdown',
  'code',
  'password',
  'sshkey',
]

export const NOTE_TYPE_LABELS: Record<NoteContentType, MessageKey> = {
  text: 'note.type.text',
  markdown: 'note.type.markdown',
  code: 'note.type.code',
  password: 'note.type.password',
  sshkey: 'note.type.sshkey',
}

export interface CreatedNoteResult {
  note: CreatedNote
  maxViews: number
  hasPassword: boolean
}

function freshDrafts(): NoteDrafts {
  return { prose: '', password: [emptyEntry()], sshkey: '' }
}

export class NoteForm {
  drafts = $state<NoteDrafts>(freshDrafts())
  /** The code preview's language (detected, or the one picked). */
  language = $state(AUTO)
  password = $state('')
  busy = $state(false)
  problem = $state<string | null>(null)
  result = $state<CreatedNoteResult | null>(null)
  /** Deleting the note just made; a new note gets a new one. */
  deletion = $state<Deletion | null>(null)

  #type = $state<NoteContentType>('text')
  #views = $state(0)
  #expireSec = $state(0)

  /** The UTF-8 size of what would be sent. */
  readonly bytes = $derived(utf8Length(noteText(this.#type, this.drafts)))
  /** Only a draft with something in it has a size worth showing (an empty list is not "57 B"). */
  readonly empty = $derived(isEmptyDraft(this.#type, this.drafts))
  readonly overLimit = $derived(config.value !== null && this.bytes > config.value.noteMaxSize)
  /** A note being written or sent would be lost by leaving the page. */
  readonly unsaved = $derived(this.result === null && (this.busy || !this.empty))

  get type(): NoteContentType {
    return this.#type
  }

  /** Switching kinds keeps each draft; "Write something first." was about the kind it was said for. */
  set type(value: NoteContentType) {
    if (value !== this.#type) this.problem = null
    this.#type = value
  }

  get maxViews(): number {
    const cfg = config.value
    return cfg && !cfg.noteViewOptions.includes(this.#views) ? cfg.noteDefaultViews : this.#views
  }

  set maxViews(value: number) {
    this.#views = value
  }

  get expireSec(): number {
    const cfg = config.value
    return cfg && !cfg.noteExpireOptions.includes(this.#expireSec)
      ? cfg.noteDefaultExpire
      : this.#expireSec
  }

  set expireSec(value: number) {
    this.#expireSec = value
  }

  /** Sends the draft of the chosen kind, or says why it cannot be sent yet. */
  async submit(): Promise<void> {
    const cfg = config.value
    if (!cfg || this.busy) return
    const type = this.#type
    const found = draftProblem(type, this.drafts, cfg.noteMaxSize)
    if (found) {
      this.problem =
        found === 'empty'
          ? t(type === 'password' ? 'note.pw.empty' : 'note.empty')
          : t('note.tooLarge', { max: formatBytes(cfg.noteMaxSize) })
      return
    }
    this.problem = null
    this.busy = true
    const views = this.maxViews
    const password = this.password
    try {
      const note = await createNote({
        text: noteText(type, $state.snapshot(this.drafts) as NoteDrafts),
        contentType: type,
        maxViews: views,
        expireSec: this.expireSec,
        ...(password ? { password } : {}),
      })
      this.result = { note, maxViews: views, hasPassword: password !== '' }
      this.deletion = new Deletion(
        () => deleteNote(note.id, note.ownerToken),
        historyKey({ kind: 'note', id: note.id }),
      )
      void addToHistory({
        kind: 'note',
        id: note.id,
        link: note.link,
        label: t('history.noteLabel', { type: t(NOTE_TYPE_LABELS[type]) }),
        createdAt: historyTime(),
        expiresAt: note.expiresAt,
        limit: views,
        ownerToken: note.ownerToken,
      })
    } catch (error) {
      this.problem = t('note.failed', { message: errorMessage(error, 'create') })
    } finally {
      this.busy = false
    }
  }

  /** Back to an empty form for the next note; the kind, views and expiry stay as chosen. */
  another(): void {
    this.result = null
    this.drafts = freshDrafts()
    this.password = ''
    this.problem = null
  }
}
