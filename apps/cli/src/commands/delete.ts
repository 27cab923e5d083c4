/** `fileshare delete <link>`: deletes an upload, note or request this machine created. */
import {
  deleteFile,
  deleteInbox,
  deleteNote,
  isApiError,
  PATHS,
  unlockFileUploadState,
  type ApiClient,
} from '@fileshare/protocol'
import { Command } from 'commander'

import { createApi } from '../lib/api.js'
import type { Context } from '../lib/context.js'
import { UsageError } from '../lib/errors.js'
import type { UnfinishedUpload } from '../lib/history.js'
import type { Output } from '../lib/output.js'
import { addJsonOption, examples } from '../lib/options.js'
import { passwordForLink } from '../lib/prompts.js'

export async function runDelete(
  query: string,
  options: { json?: boolean },
  ctx: Context,
): Promise<void> {
  const output = ctx.output(options.json)
  const entry = await ctx.history.find(query)
  if (entry === undefined) {
    const unfinished = await ctx.history.findUnfinished(query)
    if (unfinished) return cancelUnfinished(unfinished, output, ctx)
    throw new UsageError(
      `${query} is not in this machine's history (\`fileshare ls\`); only the machine that created ` +
        'an upload or note holds its owner token',
    )
  }
  const api = createApi(entry.server)
  let deleted = true
  try {
    if (entry.kind === 'file') await deleteFile(api, entry.id, entry.ownerToken)
    else if (entry.kind === 'note') await deleteNote(api, entry.id, entry.ownerToken)
    else await deleteInbox(api, { id: entry.id, inboxOwnerToken: entry.inboxOwnerToken })
  } catch (error) {
    // Already gone (deleted elsewhere, or removed by the server's cleanup): nothing is left to
    // delete, and the entry is only clutter.
    if (!isApiError(error) || error.status !== 404) throw error
    deleted = false
  }
  await ctx.history.remove(entry.id)
  const what = `${entry.kind === 'file' ? 'upload' : entry.kind} ${entry.id}`
  if (output.json) output.result({ id: entry.id, kind: entry.kind, deleted, gone: !deleted })
  else if (deleted) output.print(`Deleted ${what}.`)
  else output.print(`The ${what} was already gone from the server; removed it from this list.`)
}

/** Cancels an unfinished upload: the server drops its bytes, and this machine its state. */
async function cancelUnfinished(upload: UnfinishedUpload, output: Output, ctx: Context) {
  const api = createApi(upload.server)
  let deleted = true
  try {
    if (upload.kind === 'file') await deleteFile(api, upload.id, await ownerToken(api, upload, ctx))
    else await api.json('DELETE', PATHS.requestUpload(upload.requestId, upload.id))
  } catch (error) {
    if (!isApiError(error, 404)) throw error
    deleted = false
  }
  await ctx.history.dropUnfinished(upload.id)
  if (output.json) output.result({ id: upload.id, kind: 'unfinished', deleted, gone: !deleted })
  else if (deleted) output.print(`Cancelled the unfinished upload ${upload.id}.`)
  else
    output.print(`The unfinished upload ${upload.id} was already gone from the server; forgot it.`)
}

/**
 * The owner token of an unfinished file upload: kept in the history, or for a password-protected
 * upload derived again from its password, asked for (or read from $FILESHARE_PASSWORD).
 */
async function ownerToken(
  api: ApiClient,
  upload: Extract<UnfinishedUpload, { kind: 'file' }>,
  ctx: Context,
): Promise<string> {
  if (upload.ownerToken !== undefined) return upload.ownerToken
  const password = await passwordForLink(undefined, ctx.prompter, ctx.env)
  return (await unlockFileUploadState(api, upload.state, password)).ownerToken
}

export function deleteCommand(ctx: Context): Command {
  const command = new Command('delete')
    .summary('delete an upload, note or request sent from this machine')
    .description(
      'Deletes an upload, a note or a file request at once, with the owner token kept in this ' +
        "machine's history, and forgets it; one the server no longer has is only forgotten. " +
        'An unfinished upload (`fileshare resume`) is cancelled. ' +
        'Takes the link, the id, or the start of the id.',
    )
    .argument(
      '<link>',
      'the share link, inbox or upload link, or the id as `fileshare ls` shows it',
    )
  addJsonOption(command)
  return command
    .addHelpText(
      'after',
      examples(
        "fileshare delete 'https://share.example.org/d/1b4e28ba-…#…'",
        'fileshare delete 1b4e28ba',
      ),
    )
    .action((link: string, options: { json?: boolean }) => runDelete(link, options, ctx))
}
