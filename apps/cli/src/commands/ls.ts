/** `fileshare ls`: what this machine sent, with downloads or views left and expiry. */
import {
  ApiError,
  inspectFile,
  inspectNote,
  openRequest,
  parseLink,
  submissionsLeft,
  type FileLink,
  type RequestLink,
} from '@fileshare/protocol'
import { Command } from 'commander'

import { createApi } from '../lib/api.js'
import type { Context } from '../lib/context.js'
import { printable } from '../lib/entry-name.js'
import { UsageError } from '../lib/errors.js'
import type { HistoryEntry } from '../lib/history.js'
import { addJsonOption, examples } from '../lib/options.js'
import { formatDate } from '../lib/units.js'

interface LsOptions {
  forget?: string
  offline?: boolean
  json?: boolean
}

interface Status {
  /**
   * `available`, `closed` (a request that takes no more uploads but still holds what arrived),
   * `gone` (expired, used up or deleted) or `unknown` (server unreachable).
   */
  state: 'available' | 'closed' | 'gone' | 'unknown'
  /** Downloads, views or uploads left. */
  left: number | null
  expiresAt: string
}

const CHECKS_IN_FLIGHT = 4

async function statusOf(entry: HistoryEntry): Promise<Status> {
  const api = createApi(entry.server)
  try {
    if (entry.kind === 'file') {
      const info = await inspectFile(api, parseLink(entry.link).link as FileLink)
      return {
        state: 'available',
        left: info.maxDownloads - info.downloadCount,
        expiresAt: info.expiresAt,
      }
    }
    if (entry.kind === 'note') {
      const info = await inspectNote(api, parseLink(entry.link).link as FileLink)
      return { state: 'available', left: info.maxViews - info.viewCount, expiresAt: info.expiresAt }
    }
    const request = await openRequest(api, parseLink(entry.uploadLink).link as RequestLink)
    return {
      state: request.open ? 'available' : 'closed',
      left: submissionsLeft({ ...request, acceptsNote: request.brief.acceptsNote }),
      expiresAt: request.closesAt,
    }
  } catch (error) {
    const expiresAt = entry.kind === 'request' ? entry.closesAt : entry.expiresAt
    if (error instanceof ApiError && (error.status === 404 || error.status === 410)) {
      return { state: 'gone', left: 0, expiresAt }
    }
    return { state: 'unknown', left: null, expiresAt }
  }
}

async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await fn(items[index]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

function nameOf(entry: HistoryEntry): string {
  if (entry.kind === 'file') return printable(entry.name)
  if (entry.kind === 'note') return `(${entry.contentType} note)`
  return '(file request)'
}

function leftOf(entry: HistoryEntry, left: number): string {
  const unit = entry.kind === 'file' ? 'download' : entry.kind === 'note' ? 'view' : 'upload'
  return `${left} ${unit}${left === 1 ? '' : 's'}`
}

export async function runLs(options: LsOptions, ctx: Context): Promise<void> {
  const output = ctx.output(options.json)
  if (options.forget !== undefined) {
    const entry = await ctx.history.find(options.forget)
    if (entry === undefined) throw new UsageError(`${options.forget} is not in the history`)
    await ctx.history.remove(entry.id)
    if (output.json) output.result({ id: entry.id, forgotten: true })
    else output.print(`Forgot ${entry.id} (it stays on the server until it expires).`)
    return
  }
  const entries = await ctx.history.list()
  const statuses =
    options.offline === true
      ? entries.map((e): Status => ({
          state: 'unknown',
          left: null,
          expiresAt: e.kind === 'request' ? e.closesAt : e.expiresAt,
        }))
      : await mapLimited(entries, CHECKS_IN_FLIGHT, statusOf)

  if (output.json) {
    // The owner tokens stay in the history file; scripts get the links.
    output.result({
      entries: entries.map((e, i) => {
        const status = statuses[i]!
        const common = {
          id: e.id,
          kind: e.kind,
          server: e.server,
          createdAt: e.createdAt,
          state: status.state,
          left: status.left,
          expiresAt: status.expiresAt,
        }
        if (e.kind === 'file') {
          return {
            ...common,
            link: e.link,
            name: e.name,
            size: e.size,
            fileCount: e.fileCount,
            maxDownloads: e.maxDownloads,
          }
        }
        if (e.kind === 'note')
          return { ...common, link: e.link, contentType: e.contentType, maxViews: e.maxViews }
        return {
          ...common,
          uploadLink: e.uploadLink,
          inboxLink: e.inboxLink,
          maxUploads: e.maxUploads,
        }
      }),
    })
    return
  }
  if (entries.length === 0) {
    output.print('Nothing sent from this machine yet.')
    return
  }
  const rows = entries.map((e, i) => {
    const s = statuses[i]!
    const left =
      s.state === 'gone' || s.state === 'closed'
        ? s.state
        : s.left === null
          ? '?'
          : leftOf(e, s.left)
    return [
      e.id.slice(0, 8),
      e.kind,
      formatDate(new Date(e.createdAt)),
      left,
      formatDate(new Date(s.expiresAt)),
      nameOf(e),
    ]
  })
  const header = ['ID', 'KIND', 'CREATED', 'LEFT', 'EXPIRES', 'NAME']
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  for (const row of [header, ...rows]) {
    output.print(
      row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '),
    )
  }
}

export function lsCommand(ctx: Context): Command {
  const command = new Command('ls')
    .summary('list what this machine sent, with downloads or views left')
    .description(
      'Lists the uploads, notes and file requests created from this machine (kept in the config ' +
        'folder, readable only by you), asking each server how many downloads, views or uploads ' +
        'are left. `fileshare ls --json` includes the links.',
    )
    .option('--forget <id>', 'remove an entry from the list (it stays on the server)')
    .option('--offline', 'do not ask the servers')
  addJsonOption(command)
  return command
    .addHelpText(
      'after',
      examples(
        'fileshare ls',
        'fileshare ls --json | jq -r ".entries[0].link"',
        'fileshare ls --forget 1b4e28ba',
      ),
    )
    .action((options: LsOptions) => runLs(options, ctx))
}
