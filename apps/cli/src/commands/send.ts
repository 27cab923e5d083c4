/** `fileshare send <paths...>`: encrypts and uploads files, prints the share link. */
import { sendFile } from '@fileshare/protocol'
import { Command } from 'commander'

import { createSignedInApi, serverConfig } from '../lib/api.js'
import type { Context } from '../lib/context.js'
import { UsageError } from '../lib/errors.js'
import { checkPayloadFits } from '../lib/node-source.js'
import { record } from '../lib/history.js'
import {
  addJsonOption,
  addPasswordOption,
  addQrOption,
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
import { openSendInput, readsStdin, STDIN_NAME } from '../lib/send-input.js'

export interface SendOptions {
  expire?: string
  downloads?: string
  password?: string | boolean
  /** The file name of what `-` reads from standard input. */
  name?: string
  server?: string
  websocket?: boolean
  json?: boolean
  qr?: boolean
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
  const output = ctx.output(options.json)
  const fromStdin = readsStdin(paths, options.name, ctx.stdin)
  if (fromStdin) checkStdinPassword(options, ctx)
  await refusePathAsPassword(options.password)
  const { baseUrl } = await resolveServer(options.server, ctx.env)
  const api = await createSignedInApi(baseUrl, ctx, {
    webSocket: options.websocket !== false,
  })
  const config = await serverConfig(api)
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

  const input = await openSendInput(paths, {
    fromStdin,
    name: options.name,
    stdin: ctx.stdin,
    maxBytes: config.maxFileSize,
    warn: (line) => output.warn(line),
  })
  try {
    const { payload } = input
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

    if (options.qr) await output.qr(sent.link)
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
    await input.close()
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
      '--name <name>',
      `file name of what - reads from standard input (default: ${STDIN_NAME})`,
    )
  addPasswordOption(command, 'protect the link with a password')
  addServerOption(command)
  addWebSocketOption(command)
  addQrOption(command, 'the link')
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
      ),
    )
    .action((paths: string[], options: SendOptions) => runSend(paths, options, ctx))
}
