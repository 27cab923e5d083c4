/**
 * `fileshare inbox <inbox-link>` lists what senders uploaded into a file request, with names
 * decrypted; `inbox get` downloads, `inbox rm` deletes one upload, `inbox close` stops new
 * uploads and `inbox delete` deletes the request with everything in it.
 */
import { join } from 'node:path'

import {
  closeInbox,
  deleteInbox,
  deleteInboxFile,
  downloadInboxFile,
  filesOf,
  groupEntries,
  isNoteEntry,
  openInbox,
  plainSize,
  requireServerId,
  submissionsUsed,
  type ApiClient,
  type InboxFile,
  type InboxLink,
  type OpenedInbox,
} from '@fileshare/protocol'
import { Command } from 'commander'

import { createApi } from '../lib/api.js'
import type { Context } from '../lib/context.js'
import { printable } from '../lib/entry-name.js'
import { UsageError } from '../lib/errors.js'
import { parseInboxLink } from '../lib/links.js'
import { addJsonOption, addPasswordOption, addQuietOption, examples } from '../lib/options.js'
import { passwordForLink } from '../lib/prompts.js'
import { checkDestination, receive, type Received } from '../lib/receive.js'
import { formatBytes, formatDate, formatWhen } from '../lib/units.js'
import { nodeRecords } from '../lib/node-records.js'

interface InboxOptions {
  password?: string | boolean
  json?: boolean
}

async function open(
  linkText: string,
  options: InboxOptions,
  ctx: Context,
): Promise<{ api: ApiClient; link: InboxLink; inbox: OpenedInbox }> {
  const { baseUrl, link } = parseInboxLink(linkText)
  const api = createApi(baseUrl)
  let password: string | undefined
  if (link.passwordSalt !== undefined) {
    password = await passwordForLink(options.password, ctx.prompter, ctx.env, 'Inbox password')
  }
  return { api, link, inbox: await openInbox(api, link, password) }
}

/** `report.pdf`, `photos/ (12 files)`, `(note)`, `(note with 1a2b3c4d)`. */
function describeEntry(entry: InboxFile): string {
  if (isNoteEntry(entry)) {
    const target = entry.metadata.with
    return target === undefined ? '(note)' : `(note with ${target.slice(0, 8)})`
  }
  const files = filesOf(entry.metadata)
  if (!entry.metadata.archive) return printable(entry.metadata.files[0]?.name ?? '?')
  const top = [
    ...new Set(
      entry.metadata.files.map((f) => f.name.split('/')[0] + (f.name.includes('/') ? '/' : '')),
    ),
  ]
  const head = top.slice(0, 2).map(printable).join(', ') + (top.length > 2 ? ', …' : '')
  return `${head} (${files.length} file${files.length === 1 ? '' : 's'})`
}

/** Characters of an upload id the listing shows. */
const SHORT_ID = 8

/** The id as the listing shows it (its first 8 characters), whole where another shares those. */
function shortId(id: string, ids: readonly string[]): string {
  const short = id.slice(0, SHORT_ID)
  return ids.some((other) => other !== id && other.startsWith(short)) ? id : short
}

/** The folder `inbox get --all` saves an upload into: its id as the listing shows it. */
function folderNameOf(entry: InboxFile, entries: readonly InboxFile[]): string {
  const ids = entries.map((e) => e.id)
  return shortId(requireServerId(entry.id, 'inbox entry'), ids)
}

function findEntry(inbox: OpenedInbox, query: string): InboxFile {
  const q = query.trim().toLowerCase()
  const found = inbox.entries.filter((e) => e.id === q || (q.length >= 4 && e.id.startsWith(q)))
  if (found.length === 0)
    throw new UsageError(`No upload ${query} in this inbox (see \`fileshare inbox <inbox-link>\`)`)
  if (found.length > 1)
    throw new UsageError(`"${query}" matches ${found.length} uploads; give more of the id`)
  return found[0]!
}

export async function runInbox(
  linkText: string,
  options: InboxOptions,
  ctx: Context,
): Promise<void> {
  const output = ctx.output(options.json)
  const { inbox } = await open(linkText, options, ctx)
  // Uploads as the requester chose them: a sender's note is part of that sender's upload.
  const uploads = submissionsUsed({ ...inbox, acceptsNote: inbox.brief.acceptsNote })
  if (output.json) {
    output.result({
      id: inbox.id,
      message: inbox.brief.message,
      acceptsNote: inbox.brief.acceptsNote,
      open: inbox.open,
      closesAt: inbox.closesAt,
      createdAt: inbox.createdAt,
      usedUploads: uploads.used,
      maxUploads: uploads.max,
      maxSize: inbox.maxSize,
      uploadLink: inbox.uploadLink,
      entries: inbox.entries.map((e) => ({
        id: e.id,
        kind: e.metadata.kind ?? 'files',
        with: e.metadata.with ?? null,
        archive: e.metadata.archive,
        files: e.metadata.files,
        size: plainSize(e.size),
        createdAt: e.createdAt,
        expiresAt: e.expiresAt,
        downloadCount: e.downloadCount,
        maxDownloads: e.maxDownloads,
        downloadsLeft: e.maxDownloads - e.downloadCount,
      })),
      unreadable: inbox.unreadable,
    })
    return
  }
  output.print(`Message:     ${printable(inbox.brief.message.split('\n')[0] ?? '')}`)
  output.print(
    `${openState(inbox.open, inbox.closesAt)}; ${uploads.used} of ${uploads.max} ` +
      `upload${uploads.max === 1 ? '' : 's'} used`,
  )
  output.print(`Upload link: ${inbox.uploadLink}`)
  output.print('')
  if (inbox.entries.length === 0) {
    output.print('Nothing has arrived yet.')
  } else {
    // A sender's note is listed right after the files it came with.
    const listed = groupEntries(inbox.entries).flatMap(({ entry, note }) =>
      note ? [entry, note] : [entry],
    )
    const ids = inbox.entries.map((e) => e.id)
    const rows = listed.map((e) => [
      shortId(e.id, ids),
      formatDate(new Date(e.createdAt)),
      formatBytes(plainSize(e.size)),
      `${e.maxDownloads - e.downloadCount} of ${e.maxDownloads}`,
      formatDate(new Date(e.expiresAt)),
      describeEntry(e),
    ])
    const header = ['ID', 'RECEIVED', 'SIZE', 'DOWNLOADS', 'KEPT UNTIL', 'WHAT']
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
    for (const row of [header, ...rows]) {
      output.print(
        row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '),
      )
    }
  }
  if (inbox.unreadable.length > 0) {
    output.warn(`${inbox.unreadable.length} upload(s) could not be decrypted and are not shown`)
  }
}

interface InboxGetOptions extends InboxOptions {
  quiet?: boolean
  all?: boolean
  output?: string
  force?: boolean
}

export async function runInboxGet(
  linkText: string,
  entryId: string | undefined,
  options: InboxGetOptions,
  ctx: Context,
): Promise<void> {
  const output = ctx.output(options.json, options.quiet)
  if ((entryId === undefined) === (options.all !== true)) {
    throw new UsageError('Name one upload id, or --all for every upload')
  }
  const { api, inbox } = await open(linkText, options, ctx)
  const entries = entryId !== undefined ? [findEntry(inbox, entryId)] : inbox.entries
  const ids = inbox.entries.map((e) => e.id)
  const base = options.output ?? '.'
  // With --all, each upload gets a folder named by its id as the listing shows it: two senders
  // may use the same names.
  const destinationOf = (entry: InboxFile) => ({
    dir: options.all === true ? join(base, folderNameOf(entry, inbox.entries)) : base,
    force: options.force === true,
  })
  for (const entry of entries)
    await checkDestination(entry.metadata, entry.fileCount, entry.id, destinationOf(entry))

  const results: Array<{ id: string } & Received> = []
  for (const entry of entries) {
    output.info(
      `${shortId(entry.id, ids)}  ${describeEntry(entry)}  ${formatBytes(plainSize(entry.size))}`,
    )
    const download = await downloadInboxFile(api, inbox, entry.id, {
      signal: ctx.signal,
      cipher: nodeRecords,
    })
    const received = await receive(download, entry.metadata, entry.id, destinationOf(entry), output)
    results.push({ id: entry.id, ...received })
    const where = received.folder ?? destinationOf(entry).dir
    for (const name of received.shown) output.print(printable(join(where, name)))
  }
  if (output.json) {
    output.result({
      entries: results.map((r) => ({
        id: r.id,
        archive: r.archive,
        size: r.bytes,
        paths: r.paths,
        folder: r.folder,
      })),
    })
  } else if (results.length === 0) {
    output.info('Nothing to download.')
  }
}

export async function runInboxRemove(
  linkText: string,
  entryId: string,
  options: InboxOptions,
  ctx: Context,
): Promise<void> {
  const output = ctx.output(options.json)
  const { api, inbox } = await open(linkText, options, ctx)
  const entry = findEntry(inbox, entryId)
  await deleteInboxFile(api, inbox, entry.id)
  if (output.json) output.result({ id: entry.id, deleted: true })
  else output.print(`Deleted upload ${entry.id.slice(0, 8)} (${describeEntry(entry)}).`)
}

/** What the owner's requests name: the inbox and its owner token. */
type InboxOwner = Pick<OpenedInbox, 'id' | 'inboxOwnerToken'>

/** The inbox owner token from this machine's history, else from opening the inbox. */
async function ownerAccess(
  linkText: string,
  options: InboxOptions,
  ctx: Context,
): Promise<{ api: ApiClient; inbox: InboxOwner }> {
  const { baseUrl, link } = parseInboxLink(linkText)
  const entry = await ctx.history.find(link.id)
  if (entry?.kind === 'request') {
    return {
      api: createApi(baseUrl),
      inbox: { id: link.id, inboxOwnerToken: entry.inboxOwnerToken },
    }
  }
  const { api, inbox } = await open(linkText, options, ctx)
  return { api, inbox: { id: inbox.id, inboxOwnerToken: inbox.inboxOwnerToken } }
}

/** What `inbox close` and `inbox delete` do with the owner token, and how each says it is done. */
const OWNER_ACTIONS = {
  close: {
    summary: 'stop taking uploads; keep what arrived',
    act: (api: ApiClient, inbox: InboxOwner) => closeInbox(api, inbox),
    field: 'closed',
    line: 'Closed: no new uploads; what arrived stays in the inbox.',
  },
  delete: {
    summary: 'delete the request and every upload in it',
    act: async (api: ApiClient, inbox: InboxOwner, ctx: Context) => {
      await deleteInbox(api, inbox)
      await ctx.history.remove(inbox.id)
    },
    field: 'deleted',
    line: 'Deleted the request and every upload in it.',
  },
} as const

async function runOwnerAction(
  action: keyof typeof OWNER_ACTIONS,
  linkText: string,
  options: InboxOptions,
  ctx: Context,
): Promise<void> {
  const { act, field, line } = OWNER_ACTIONS[action]
  const output = ctx.output(options.json)
  const { api, inbox } = await ownerAccess(linkText, options, ctx)
  await act(api, inbox, ctx)
  if (output.json) output.result({ id: inbox.id, [field]: true })
  else output.print(line)
}

const LINK = "'https://share.example.org/i/…#…'"

/**
 * An inbox command on `<inbox-link>`: `setUp` adds its own arguments and options, then come the
 * password and JSON options every inbox command takes, and its examples.
 */
function inboxCommandOf(
  name: string,
  summary: string,
  setUp: (command: Command) => Command,
  ...lines: string[]
): Command {
  const command = setUp(new Command(name).summary(summary))
  addPasswordOption(command, 'password of a protected inbox link')
  addJsonOption(command)
  return command.addHelpText('after', examples(...lines))
}

export function inboxCommand(ctx: Context): Command {
  const inbox = inboxCommandOf(
    'inbox',
    'list what arrived in a file request; inbox get/rm/close/delete',
    (command) =>
      command
        .description(
          'Lists the uploads of a file request with their decrypted names, sizes and dates. ' +
            'Opening the list counts no download.',
        )
        .argument('<inbox-link>', 'the inbox link (/i/…#…) printed by `fileshare request`'),
    `fileshare inbox ${LINK}`,
    `fileshare inbox get ${LINK} --all -o received/`,
  ).action((link: string, options: InboxOptions) => runInbox(link, options, ctx))

  const get = inboxCommandOf(
    'get',
    'download uploads from the inbox (counts a download of each)',
    (command) =>
      addQuietOption(
        command
          .description(
            'Downloads and decrypts one upload (by its id, or the start of it) or, with --all, ' +
              'every upload, each into a folder named by its id as listed (its first 8 characters). ' +
              'Archives are extracted as by ' +
              '`fileshare get`.',
          )
          .argument('<inbox-link>', 'the inbox link')
          .argument('[entry-id]', 'the upload to download, as listed')
          .option('-a, --all', 'download every upload')
          .option('-o, --output <dir>', 'folder to save into (default: the current folder)')
          .option('-f, --force', 'overwrite existing files; extract a hidden top-level name'),
      ),
    `fileshare inbox get ${LINK} 1b4e28ba`,
    `fileshare inbox get ${LINK} --all -o received/`,
  ).action((link: string, entry: string | undefined, options: InboxGetOptions) =>
    runInboxGet(link, entry, options, ctx),
  )

  const rm = inboxCommandOf(
    'rm',
    'delete one upload from the inbox',
    (command) =>
      command
        .argument('<inbox-link>', 'the inbox link')
        .argument('<entry-id>', 'the upload to delete, as listed'),
    `fileshare inbox rm ${LINK} 1b4e28ba`,
  ).action((link: string, entry: string, options: InboxOptions) =>
    runInboxRemove(link, entry, options, ctx),
  )

  inbox.addCommand(get).addCommand(rm)
  for (const action of ['close', 'delete'] as const) {
    const command = inboxCommandOf(
      action,
      OWNER_ACTIONS[action].summary,
      (command) => command.argument('<inbox-link>', 'the inbox link'),
      `fileshare inbox ${action} ${LINK}`,
    )
    inbox.addCommand(
      command.action((link: string, options: InboxOptions) =>
        runOwnerAction(action, link, options, ctx),
      ),
    )
  }
  return inbox
}

/**
 * Whether the request still takes uploads. A request closed before its time says so, rather than
 * showing the time it would have run until.
 */
export function openState(open: boolean, closesAt: string, now = new Date()): string {
  if (open) return `Open until:  ${formatWhen(closesAt, now)}`
  if (Date.parse(closesAt) > now.getTime()) return 'Closed:      by the requester'
  return `Closed:      ${formatWhen(closesAt, now)} (expired)`
}
