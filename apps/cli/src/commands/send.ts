/** `fileshare send <paths...>`: encrypts and uploads files, prints the share link. */
import { sendFile } from '@fileshare/protocol'
import { Command } from 'commander'

import { createSignedInApi } from '../lib/api.js'
import type { Context } from '../lib/context.js'
import { printable, unsafeEntryName } from '../lib/entry-name.js'
import { UsageError } from '../lib/errors.js'
import { mediaTypeOf } from '../lib/media-type.js'
import { checkPayloadFits, preparePayload, type Payload } from '../lib/node-source.js'
import { record } from '../lib/history.js'
import {
  addJsonOption,
  addPasswordOption,
  addServerOption,
  addWebSocketOption,
  chooseCount,
  chooseDuration,
  examples,
  refusePathAsPassword,
} from '../lib/options.js'
import { PASSWORD_ENV, passwordFromOption } from '../lib/prompts.js'
import { resolveServer } from '../lib/server.js'
import { formatBytes, formatWhen } from '../lib/units.js'
import { nodeRecords } from '../lib/node-records.js'
import { spoolInput, type Spool } from '../lib/stdin-spool.js'

export interface SendOptions {
  expire?: string
  downloads?: string
  password?: string | boolean
  /** The file name of what `-` reads from standard input. */
  name?: string
  server?: string
  websocket?: boolean
  json?: boolean
}

/** The path that stands for standard input, and the file name it gets without `--name`. */
const STDIN_PATH = '-'
const STDIN_NAME = 'stdin'

/**
 * `-` reads standard input, alone: it cannot be a terminal, and a password cannot be asked for
 * on it, since the data takes it up.
 */
function checkStdinUse(
  paths: readonly string[],
  options: SendOptions,
  ctx: Context,
  fromStdin: boolean,
): void {
  if (!fromStdin) {
    if (options.name !== undefined) {
      throw new UsageError('--name names what is read from standard input: give - as the path')
    }
    return
  }
  if (paths.length > 1) {
    throw new UsageError('- (standard input) is sent alone, not with other paths')
  }
  if (ctx.stdin.isTTY) {
    throw new UsageError('- reads standard input, which is a terminal here: pipe the data in')
  }
  if (options.password === true && !ctx.env[PASSWORD_ENV]) {
    throw new UsageError(
      `standard input carries the data, so the password cannot be asked for: ` +
        `give --password=<password> or set $${PASSWORD_ENV}`,
    )
  }
  const name = options.name
  if (name !== undefined && (unsafeEntryName(name) !== null || name.includes('/'))) {
    throw new UsageError(`--name ${printable(name)} is not a plain file name`)
  }
}

/** The spooled input as a payload of one file named `name`. */
function stdinPayload(spool: Spool, name: string): Payload {
  return {
    source: { size: spool.size, stream: () => spool.stream() },
    metadata: { archive: false, files: [{ name, type: mediaTypeOf(name), size: spool.size }] },
    fileCount: 1,
    files: 1,
    contentBytes: spool.size,
    summary: name,
    skipped: [],
  }
}

export async function runSend(paths: string[], options: SendOptions, ctx: Context): Promise<void> {
  const output = ctx.output(options.json)
  const fromStdin = paths.includes(STDIN_PATH)
  checkStdinUse(paths, options, ctx, fromStdin)
  await refusePathAsPassword(options.password)
  const { baseUrl } = await resolveServer(options.server, ctx.env)
  const api = await createSignedInApi(baseUrl, ctx.credentials, {
    webSocket: options.websocket !== false,
  })
  const config = await api.config()
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

  let spool: Spool | undefined
  try {
    let payload: Payload
    if (fromStdin) {
      spool = await spoolInput(ctx.stdin, config.maxFileSize)
      payload = stdinPayload(spool, options.name ?? STDIN_NAME)
    } else {
      payload = await preparePayload(paths, (line) => output.warn(line))
    }
    const cipherSize = checkPayloadFits(
      payload,
      { maxFiles: config.maxFilesPerUpload, maxEncryptedBytes: config.maxFileSize },
      'this server',
    )
    const password = await passwordFromOption(options.password, ctx.prompter, {
      creating: true,
      env: ctx.env,
    })

    const bar = output.progress('Uploading', cipherSize)
    let sent
    try {
      sent = await sendFile(api, payload.source, {
        expireSec,
        maxDownloads,
        metadata: payload.metadata,
        fileCount: payload.fileCount,
        ...(password !== undefined ? { password } : {}),
        onProgress: ({ sentBytes, totalBytes }) => bar.update(sentBytes, totalBytes),
        signal: ctx.signal,
        cipher: nodeRecords,
      })
    } finally {
      bar.stop()
    }

    await record(
      ctx.history,
      {
        kind: 'file',
        id: sent.id,
        server: baseUrl,
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

    if (output.json) {
      output.result({
        link: sent.link,
        id: sent.id,
        expiresAt: sent.expiresAt,
        maxDownloads: sent.maxDownloads,
        expireSec,
        hasPassword: password !== undefined,
        archive: payload.metadata.archive,
        files: payload.files,
        size: payload.contentBytes,
        uploadSize: cipherSize,
        transport: sent.transport,
        skipped: payload.skipped,
      })
      return
    }
    output.info(
      `Sent ${payload.summary}, ${formatBytes(payload.contentBytes)}` +
        `${password !== undefined ? ', password-protected' : ''}. ` +
        `${maxDownloads} download${maxDownloads === 1 ? '' : 's'}, expires ${formatWhen(sent.expiresAt)}.`,
    )
    output.print(sent.link)
  } finally {
    await spool?.close()
  }
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
    .argument('<paths...>', 'files and folders to send, or - for standard input')
    .option('-e, --expire <duration>', "expiry such as 1h, 1d or 7d (allowed values: the server's)")
    .option('-d, --downloads <count>', "downloads allowed (allowed values: the server's)")
    .option(
      '-n, --name <name>',
      `file name of what - reads from standard input (default: ${STDIN_NAME})`,
    )
  addPasswordOption(command, 'protect the link with a password')
  addServerOption(command)
  addWebSocketOption(command)
  addJsonOption(command)
  return command
    .addHelpText(
      'after',
      examples(
        'fileshare send report.pdf',
        'fileshare send photos/ notes.txt --expire 7d --downloads 5',
        'fileshare send secret.key --password --json',
        'pg_dump shop | fileshare send - --name shop.sql',
      ),
    )
    .action((paths: string[], options: SendOptions) => runSend(paths, options, ctx))
}
