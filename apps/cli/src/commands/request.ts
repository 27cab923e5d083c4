/**
 * `fileshare request` opens a file request: senders upload into it through the upload link and
 * only the inbox link opens what arrived. `request send <upload-link> <paths...>` sends into one.
 */
import { readFile } from 'node:fs/promises'

import {
  createFileRequest,
  encryptedSize,
  openRequest,
  resumeSendToRequest,
  sendNoteToRequest,
  sendToRequest,
  submissionFits,
  submissionsLeft,
  type OpenedRequest,
  type RequestUploadState,
  type ApiClient,
  type SentToRequest,
} from '@fileshare/protocol'
import { Command } from 'commander'

import { createApi, nodeWebSocket, openSignedInServer } from '../lib/api.js'
import type { Context } from '../lib/context.js'
import { printable } from '../lib/entry-name.js'
import { CliError, EXIT, UsageError } from '../lib/errors.js'
import { parseRequestLink } from '../lib/links.js'
import { record } from '../lib/history.js'
import {
  addJsonOption,
  addQuietOption,
  addPasswordOption,
  addQrOption,
  addServerOption,
  addWebSocketOption,
  chooseCount,
  chooseDuration,
  chooseSize,
  examples,
} from '../lib/options.js'
import { passwordFromOption } from '../lib/prompts.js'
import { sendSources, STDIN_NAME, withSendInput } from '../lib/send-input.js'
import type { UnfinishedRequestUpload } from '../lib/history.js'
import type { Payload } from '../lib/node-source.js'
import type { Output } from '../lib/output.js'
import { addRetriesOption, chooseRetries, runNewUpload, runResumedUpload } from '../lib/resuming.js'
import { readStdin } from '../lib/stdin.js'
import { formatBytes, formatWhen } from '../lib/units.js'
import { nodeRecords } from '../lib/node-records.js'

/** What a request gets when an option is not given, if the server allows it (else its first value). */
const DEFAULTS = { expireSec: 7 * 86_400, uploads: 10, downloads: 3 }

function preferred(allowed: readonly number[], wanted: number): number {
  return allowed.includes(wanted) ? wanted : (allowed[0] ?? wanted)
}

/** The brief holds the message padded to at most 8 KiB; this leaves room for its framing. */
const MESSAGE_MAX_BYTES = 7000

export interface RequestOptions {
  message?: string
  messageFile?: string
  expire?: string
  uploads?: string
  maxSize?: string
  downloads?: string
  acceptNote?: boolean
  password?: string | boolean
  notifyEmail?: string
  notifyWebhook?: string
  server?: string
  json?: boolean
  qr?: boolean
}

async function readMessage(options: RequestOptions, ctx: Context): Promise<string> {
  if (options.message !== undefined && options.messageFile !== undefined) {
    throw new UsageError('Give --message or --message-file, not both')
  }
  if (options.message !== undefined) return options.message
  if (options.messageFile === '-') return readStdin(ctx.stdin, MESSAGE_MAX_BYTES, 'The message')
  if (options.messageFile !== undefined) return readFile(options.messageFile, 'utf8')
  return ctx.prompter.text('Message for senders (what should they send?)', {
    hint: 'give --message <text> or --message-file <path>',
  })
}

export async function runRequest(options: RequestOptions, ctx: Context): Promise<void> {
  const output = ctx.output(options.json)
  const { baseUrl, api, config } = await openSignedInServer(options.server, ctx)
  if (!config.fileRequestsEnabled) {
    throw new CliError('File requests are disabled on this server', EXIT.REFUSED)
  }
  const expireSec = chooseDuration(
    '--expire',
    options.expire,
    config.fileRequestExpireOptions,
    preferred(config.fileRequestExpireOptions, DEFAULTS.expireSec),
  )
  const maxUploads = chooseCount(
    '--uploads',
    options.uploads,
    config.fileRequestUploadOptions,
    preferred(config.fileRequestUploadOptions, DEFAULTS.uploads),
  )
  const downloads = chooseCount(
    '--downloads',
    options.downloads,
    config.fileRequestDownloadOptions,
    preferred(config.fileRequestDownloadOptions, DEFAULTS.downloads),
  )
  // Users think in file sizes; the server limits the encrypted size, a little larger.
  const limit = config.fileRequestMaxSize
  const maxSize = Math.min(encryptedSize(chooseSize('--max-size', options.maxSize, limit)), limit)
  const message = (await readMessage(options, ctx)).trim()
  if (Buffer.byteLength(message) > MESSAGE_MAX_BYTES) {
    throw new UsageError(`The message is too long (at most ${formatBytes(MESSAGE_MAX_BYTES)})`)
  }
  let password = await passwordFromOption(options.password, ctx.prompter, {
    creating: true,
    env: ctx.env,
  })
  if (password === undefined && config.fileRequestPasswordRequired) {
    password = await passwordFromOption(true, ctx.prompter, { creating: true, env: ctx.env })
  }

  const created = await createFileRequest(api, {
    message,
    acceptsNote: options.acceptNote === true,
    expireSec,
    maxUploads,
    maxSize,
    downloads,
    ...(password !== undefined ? { password } : {}),
    ...(options.notifyEmail !== undefined ? { notifyEmail: options.notifyEmail } : {}),
    ...(options.notifyWebhook !== undefined ? { notifyWebhook: options.notifyWebhook } : {}),
  })
  await record(
    ctx.history,
    {
      kind: 'request',
      id: created.id,
      server: baseUrl,
      createdAt: new Date().toISOString(),
      uploadLink: created.uploadLink,
      inboxLink: created.inboxLink,
      closesAt: created.closesAt,
      maxUploads,
      inboxOwnerToken: created.inboxOwnerToken,
    },
    (line) => output.warn(line),
  )
  if (options.qr) await output.qr(created.uploadLink)
  if (output.json) {
    output.result({
      id: created.id,
      uploadLink: created.uploadLink,
      inboxLink: created.inboxLink,
      closesAt: created.closesAt,
      maxUploads,
      maxSize,
      downloads,
      acceptsNote: options.acceptNote === true,
      hasPassword: password !== undefined,
      notifyEmail: options.notifyEmail ?? null,
      notifyWebhook: options.notifyWebhook ?? null,
      notifyWebhookSecret: created.notifyWebhookSecret ?? null,
    })
    return
  }
  output.print('Upload link (give this to the people who send you files):')
  output.print(`  ${created.uploadLink}`)
  output.print('')
  output.print('Inbox link (keep this to yourself: it opens everything sent):')
  output.print(`  ${created.inboxLink}`)
  output.print('')
  output.print(
    `Open until ${formatWhen(created.closesAt)} for ${maxUploads} upload${maxUploads === 1 ? '' : 's'} ` +
      `of up to ${formatBytes(maxSize)}, each downloadable ${downloads} time${downloads === 1 ? '' : 's'}` +
      `${password !== undefined ? '; the inbox link needs the password' : ''}.`,
  )
  if (options.notifyEmail !== undefined) {
    output.print(`The server mails ${options.notifyEmail} when a file arrives.`)
  }
  if (created.notifyWebhookSecret !== undefined) {
    output.print('')
    output.print(
      'Webhook signing key (X-Fileshare-Signature is HMAC-SHA256 of the body; shown once):',
    )
    output.print(`  ${created.notifyWebhookSecret}`)
  }
}

export interface RequestSendOptions {
  quiet?: boolean
  note?: string
  /** The file name of what `-` reads from standard input. */
  name?: string
  websocket?: boolean
  json?: boolean
  /** How long to keep resuming after a lost connection (`5m`; `0` for never). */
  retries?: string
}

export async function runRequestSend(
  linkText: string,
  paths: string[],
  options: RequestSendOptions,
  ctx: Context,
): Promise<void> {
  const output = ctx.output(options.json, options.quiet)
  const sources = sendSources(paths, options.name, ctx.stdin)
  const retryForMs = chooseRetries(options.retries)
  const { baseUrl, link } = parseRequestLink(linkText)
  const api = createApi(baseUrl, {
    webSocket: options.websocket !== false ? await nodeWebSocket() : undefined,
  })
  const opened = await openRequest(api, link)
  if (opened.brief.message) {
    output.info('Message from the requester:')
    for (const line of opened.brief.message.split('\n')) output.info(`  ${printable(line)}`)
  }
  if (!opened.open) throw new CliError('This request is closed or expired', EXIT.REFUSED)
  if (options.note !== undefined && !opened.brief.acceptsNote) {
    throw new UsageError('This request does not take a note; send without --note')
  }
  if (options.note === '') throw new UsageError('--note cannot be empty')
  const room = { ...opened, acceptsNote: opened.brief.acceptsNote }
  if (!submissionFits(room, { files: true, note: options.note !== undefined })) {
    const left = submissionsLeft(room)
    throw new CliError(
      left === 0
        ? 'This request takes no more uploads'
        : 'This request has no room left for a note; send without --note',
      EXIT.REFUSED,
    )
  }

  const fits = {
    limits: { maxFiles: opened.maxFilesPerUpload, maxEncryptedBytes: opened.maxUploadSize },
    taker: 'this request',
  }
  await withSendInput(sources, fits, output, async (payload) => {
    const start = { server: baseUrl, paths, retryForMs }
    const own = (state: RequestUploadState) => ({
      kind: 'request' as const,
      uploadLink: linkText,
      requestId: opened.id,
      state,
      options: {
        websocket: options.websocket !== false,
        ...(options.note === undefined ? {} : { note: options.note }),
      },
    })
    const sent = await runNewUpload(ctx, output, payload, { start, own }, (run) =>
      sendToRequest(api, opened, payload.source, run),
    )
    await finishRequestSend(api, opened, payload, sent, options, ctx, output)
  })
}

/** Sends the note that goes with the files, if any, and prints what was sent. */
async function finishRequestSend(
  api: ApiClient,
  opened: OpenedRequest,
  payload: Payload,
  sent: SentToRequest,
  options: { note?: string | undefined },
  ctx: Context,
  output: Output,
): Promise<void> {
  const note =
    options.note !== undefined
      ? await sendNoteToRequest(api, opened, options.note, {
          withUpload: sent.id,
          signal: ctx.signal,
          cipher: nodeRecords,
        })
      : undefined

  if (output.json) {
    output.result({
      requestId: opened.id,
      message: opened.brief.message,
      id: sent.id,
      noteId: note?.id ?? null,
      files: payload.files,
      size: payload.contentBytes,
      transport: sent.transport,
      skipped: payload.skipped,
    })
    return
  }
  output.print(
    `Sent ${payload.summary}, ${formatBytes(payload.contentBytes)}${note ? ', with a note' : ''}. ` +
      'Only the requester can open it.',
  )
}

/**
 * `send --resume` of an upload into a request: opens the request again from its upload link,
 * checks the sources, continues the upload, then sends the note as `request send` does.
 */
export async function resumeRequestSend(
  unfinished: UnfinishedRequestUpload,
  options: {
    retries?: string | undefined
    json?: boolean | undefined
    quiet?: boolean | undefined
  },
  ctx: Context,
): Promise<void> {
  const output = ctx.output(options.json, options.quiet)
  const { baseUrl, link } = parseRequestLink(unfinished.uploadLink)
  const api = createApi(baseUrl, {
    webSocket: unfinished.options.websocket ? await nodeWebSocket() : undefined,
  })
  const opened = await openRequest(api, link)
  await runResumedUpload(
    ctx,
    output,
    unfinished,
    options.retries,
    (source, kept, run) => resumeSendToRequest(api, opened, source, kept, run),
    (payload, sent) =>
      finishRequestSend(api, opened, payload, sent, unfinished.options, ctx, output),
  )
}

export function requestCommand(ctx: Context): Command {
  const request = new Command('request')
    .summary('open a file request: others upload into an inbox only you can open')
    .description(
      'Creates a file request and prints two links: the upload link to give to senders, and the ' +
        'inbox link to keep, which opens what they send (`fileshare inbox <inbox-link>`). The ' +
        'message to senders is --message, --message-file, or asked.',
    )
    .option('-m, --message <text>', 'what senders should send; encrypted, shown to them')
    .option('--message-file <path>', 'read the message from a file (- for standard input)')
    .option(
      '-e, --expire <duration>',
      "how long it stays open, such as 1d or 7d (default 7d; the server's values)",
    )
    .option('-u, --uploads <count>', "how many uploads it takes (default 10; the server's values)")
    .option('--max-size <size>', "largest upload, such as 500M or 2G (default: the server's limit)")
    .option('-d, --downloads <count>', "downloads of each upload (default 3; the server's values)")
    .option('--accept-note', 'let senders add a note to their files (a note takes a second upload)')
    .option(
      '--notify-email <address>',
      'have the server mail this address when a file arrives (the server learns it)',
    )
    .option(
      '--notify-webhook <url>',
      'have the server POST a signed notice to this https URL when a file arrives',
    )
  addPasswordOption(request, 'protect the inbox link with a password')
  addServerOption(request)
  addQrOption(request, 'the upload link')
  addJsonOption(request)
  request
    .addHelpText(
      'after',
      examples(
        "fileshare request --message 'Please send the signed contract' --expire 7d --uploads 5",
        'fileshare request --message-file brief.txt --max-size 2G --password --json',
        "fileshare request --message 'Logs please' --notify-webhook https://hooks.example.org/in",
      ),
    )
    .action((options: RequestOptions) => runRequest(options, ctx))

  const send = new Command('send')
    .summary('upload files into a file request')
    .description(
      "Shows the requester's message, then encrypts the files for the requester alone and uploads " +
        'them (several files or a folder as one ZIP archive; - sends standard input as one file, ' +
        'read to its end first, as `fileshare send -` does).',
    )
    .argument('<upload-link>', 'the upload link you were given (/r/…#…)')
    .argument('<paths...>', 'files and folders to send, or - for standard input')
    .option('-n, --note <text>', 'add a note for the requester, when the request takes one')
    .option(
      '--name <name>',
      `file name of what - reads from standard input (default: ${STDIN_NAME})`,
    )
  addWebSocketOption(send)
  addRetriesOption(send)
  addQuietOption(send)
  addJsonOption(send)
  send
    .addHelpText(
      'after',
      examples(
        "fileshare request send 'https://share.example.org/r/…#…' contract.pdf --note 'Signed'",
      ),
    )
    .action((link: string, paths: string[], options: RequestSendOptions) =>
      runRequestSend(link, paths, options, ctx),
    )

  return request.addCommand(send)
}
