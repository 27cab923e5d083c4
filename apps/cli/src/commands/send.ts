/** `fileshare send <paths...>`: encrypts and uploads files, prints the share link. */
import {
  encryptedSize,
  isLockedFileUploadState,
  resumeSendFile,
  sendFile,
  type FileUploadState,
  type SentFile,
} from '@fileshare/protocol'
import { Command } from 'commander'

import { createSignedInApi, openSignedInServer } from '../lib/api.js'
import type { Context } from '../lib/context.js'
import { UsageError } from '../lib/errors.js'
import type { Payload } from '../lib/node-source.js'
import { record } from '../lib/history.js'
import type { Output } from '../lib/output.js'
import {
  addRetriesOption,
  chooseRetries,
  ownerTokenOf,
  runNewUpload,
  runResumedUpload,
} from '../lib/resuming.js'
import {
  addJsonOption,
  addQuietOption,
  addPasswordOption,
  addQrOption,
  addServerOption,
  addWebSocketOption,
  chooseCount,
  chooseDuration,
  examples,
  refusePathAsPassword,
} from '../lib/options.js'
import { PASSWORD_ENV, passwordForLink, passwordFromOption } from '../lib/prompts.js'
import { formatBytes, formatWhen } from '../lib/units.js'
import { sendSources, STDIN_NAME, withSendInput } from '../lib/send-input.js'
import { resumeRequestSend } from './request.js'

export interface SendOptions {
  quiet?: boolean
  expire?: string
  downloads?: string
  password?: string | boolean
  /** The file name of what `-` reads from standard input. */
  name?: string
  server?: string
  websocket?: boolean
  json?: boolean
  qr?: boolean
  /** How long to keep resuming after a lost connection (`5m`; `0` for never). */
  retries?: string
  /** Continue the last unfinished upload (true) or the one named. */
  resume?: boolean | string
}

/**
 * A password for data read from standard input cannot be asked for there: the data takes it up.
 */
function checkStdinPassword(options: SendOptions, ctx: Context): void {
  if (options.password === true && !ctx.env[PASSWORD_ENV]) {
    throw new UsageError(
      `standard input carries the data, so the password cannot be asked for: ` +
        `give --password=<password> or set $${PASSWORD_ENV}`,
    )
  }
}

export async function runSend(paths: string[], options: SendOptions, ctx: Context): Promise<void> {
  if (options.resume !== undefined && options.resume !== false) {
    if (paths.length > 1) throw new UsageError('--resume takes at most one upload id, no paths')
    const query = typeof options.resume === 'string' ? options.resume : paths[0]
    return runResume(query, options, ctx)
  }
  if (paths.length === 0) throw new UsageError('Name at least one file or folder to send')
  const output = ctx.output(options.json, options.quiet)
  const retryForMs = chooseRetries(options.retries)
  const sources = sendSources(paths, options.name, ctx.stdin)
  if (sources.fromStdin) checkStdinPassword(options, ctx)
  await refusePathAsPassword(options.password)
  const { baseUrl, api, config } = await openSignedInServer(options.server, ctx, {
    webSocket: options.websocket !== false,
  })
  const expireSec = chooseDuration(
    '--expire',
    options.expire,
    config.expireOptions,
    config.defaultExpire,
  )
  const maxDownloads = chooseCount(
    '--downloads',
    options.downloads,
    config.downloadOptions,
    config.defaultDownload,
  )

  const fits = {
    limits: { maxFiles: config.maxFilesPerUpload, maxEncryptedBytes: config.maxFileSize },
    taker: 'this server',
  }
  await withSendInput(sources, fits, output, async (payload) => {
    const password = await passwordFromOption(options.password, ctx.prompter, {
      creating: true,
      env: ctx.env,
    })
    const start = { server: baseUrl, paths, retryForMs }
    const own = (state: FileUploadState) => ({
      kind: 'file' as const,
      ...ownerTokenOf(state),
      state,
      options: { expireSec, maxDownloads, websocket: options.websocket !== false },
    })
    const sent = await runNewUpload(ctx, output, payload, { start, own }, (run) =>
      sendFile(api, payload.source, {
        expireSec,
        maxDownloads,
        ...(password !== undefined ? { password } : {}),
        ...run,
      }),
    )
    await reportSent(ctx, output, baseUrl, payload, sent, {
      expireSec,
      json: options.json,
      qr: options.qr,
    })
  })
}

/**
 * `send --resume`: continues an unfinished upload of this machine (the last one, or the one
 * `query` names) after checking that its sources are what they were, then ends as `send` does.
 */
async function runResume(
  query: string | undefined,
  options: SendOptions,
  ctx: Context,
): Promise<void> {
  const output = ctx.output(options.json, options.quiet)
  const unfinished = await ctx.history.findUnfinished(query)
  if (!unfinished) {
    throw new UsageError(
      query === undefined
        ? 'No unfinished upload on this machine to resume'
        : `${query} is not an unfinished upload of this machine`,
    )
  }
  if (unfinished.kind === 'request') return resumeRequestSend(unfinished, options, ctx)
  const api = await createSignedInApi(unfinished.server, ctx, {
    webSocket: unfinished.options.websocket,
  })
  // The history keeps only what the password protects: the password is asked again.
  const password = isLockedFileUploadState(unfinished.state)
    ? await passwordForLink(options.password, ctx.prompter, ctx.env)
    : undefined
  await runResumedUpload(
    ctx,
    output,
    unfinished,
    options.retries,
    (source, kept, run) =>
      resumeSendFile(api, source, kept, {
        ...unfinished.options,
        ...(password === undefined ? {} : { password }),
        ...run,
      }),
    (payload, sent) =>
      reportSent(ctx, output, unfinished.server, payload, sent, {
        expireSec: unfinished.options.expireSec,
        json: options.json,
        qr: options.qr,
      }),
  )
}

/** Records a finished upload in the history and prints its link (or its JSON). */
async function reportSent(
  ctx: Context,
  output: Output,
  server: string,
  payload: Payload,
  sent: SentFile,
  o: { expireSec: number; json: boolean | undefined; qr: boolean | undefined },
): Promise<void> {
  await record(
    ctx.history,
    {
      kind: 'file',
      id: sent.id,
      server,
      createdAt: new Date().toISOString(),
      link: sent.link,
      name: payload.summary,
      size: payload.contentBytes,
      fileCount: payload.files,
      expiresAt: sent.expiresAt,
      maxDownloads: sent.maxDownloads,
      ownerToken: sent.ownerToken,
    },
    (line) => output.warn(line),
  )

  if (o.qr) await output.qr(sent.link)
  const hasPassword = sent.hasPassword
  if (output.json) {
    output.result({
      link: sent.link,
      id: sent.id,
      expiresAt: sent.expiresAt,
      maxDownloads: sent.maxDownloads,
      expireSec: o.expireSec,
      hasPassword,
      archive: payload.metadata.archive,
      files: payload.files,
      size: payload.contentBytes,
      uploadSize: encryptedSize(payload.source.size),
      transport: sent.transport,
      skipped: payload.skipped,
    })
    return
  }
  output.info(
    `Sent ${payload.summary}, ${formatBytes(payload.contentBytes)}` +
      `${hasPassword ? ', password-protected' : ''}. ` +
      `${sent.maxDownloads} download${sent.maxDownloads === 1 ? '' : 's'}, expires ${formatWhen(sent.expiresAt)}.`,
  )
  output.print(sent.link)
}

export function sendCommand(ctx: Context): Command {
  const command = new Command('send')
    .summary('encrypt and upload files or folders; print the share link')
    .description(
      'Encrypts files on this machine and uploads them; prints the share link, whose part after # ' +
        'is the key and never reaches the server. One file is sent as it is; several files or a ' +
        'folder are packed into one ZIP archive as they stream (empty files and folders, modes and ' +
        'modification times kept). Symbolic links inside folders are skipped. A path of - sends ' +
        'standard input as one file (named by --name); it is read to its end before the upload ' +
        'starts, through a temporary file that is encrypted and unlinked, so nothing is left on disk.',
    )
    .argument('[paths...]', 'files and folders to send, or - for standard input')
    .option('-e, --expire <duration>', "expiry such as 1h, 1d or 7d (allowed values: the server's)")
    .option('-d, --downloads <count>', "downloads allowed (allowed values: the server's)")
    .option(
      '--name <name>',
      `file name of what - reads from standard input (default: ${STDIN_NAME})`,
    )
  addPasswordOption(command, 'protect the link with a password')
  addServerOption(command)
  addWebSocketOption(command)
  addRetriesOption(command)
  command.option(
    '--resume [id]',
    "continue this machine's last unfinished upload (or the one named) where it stopped",
  )
  addQrOption(command, 'the link')
  addQuietOption(command)
  addJsonOption(command)
  return command
    .addHelpText(
      'after',
      examples(
        'fileshare send report.pdf',
        'fileshare send photos/ notes.txt --expire 7d --downloads 5',
        'fileshare send secret.key --password --json',
        'fileshare send boarding-pass.pdf --qr',
        'pg_dump shop | fileshare send - --name shop.sql',
        'fileshare send big.iso --retries 30m',
        'fileshare send --resume',
      ),
    )
    .action((paths: string[], options: SendOptions) => runSend(paths, options, ctx))
}

/** `fileshare resume [id]`: the same as `fileshare send --resume [id]`. */
export function resumeCommand(ctx: Context): Command {
  const command = new Command('resume')
    .summary('continue an unfinished upload of this machine (as send --resume)')
    .description(
      'Continues the last upload of this machine that did not finish (interrupted, or out of ' +
        'retries), or the one named, from where the server has it, after checking that the files ' +
        'are unchanged; prints the link as `fileshare send` does.',
    )
    .argument('[id]', 'the unfinished upload, by id or the start of it (default: the last)')
  addPasswordOption(command, "a password-protected upload's password, which resuming needs again")
  addRetriesOption(command)
  addQrOption(command, 'the link')
  addQuietOption(command)
  addJsonOption(command)
  return command.action((id: string | undefined, options: SendOptions) =>
    runSend([], { ...options, resume: id ?? true }, ctx),
  )
}
