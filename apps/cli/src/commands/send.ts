/** `fileshare send <paths...>`: encrypts and uploads files, prints the share link. */
import { sendFile } from '@fileshare/protocol'
import { Command } from 'commander'

import { createSignedInApi } from '../lib/api.js'
import type { Context } from '../lib/context.js'
import { checkPayloadFits, preparePayload } from '../lib/node-source.js'
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
import { passwordFromOption } from '../lib/prompts.js'
import { resolveServer } from '../lib/server.js'
import { formatBytes, formatWhen } from '../lib/units.js'
import { nodeRecords } from '../lib/node-records.js'

export interface SendOptions {
  expire?: string
  downloads?: string
  password?: string | boolean
  server?: string
  websocket?: boolean
  json?: boolean
}

export async function runSend(paths: string[], options: SendOptions, ctx: Context): Promise<void> {
  const output = ctx.output(options.json)
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

  const payload = await preparePayload(paths, (line) => output.warn(line))
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
}

export function sendCommand(ctx: Context): Command {
  const command = new Command('send')
    .summary('encrypt and upload files or folders; print the share link')
    .description(
      'Encrypts files on this machine and uploads them; prints the share link, whose part after # ' +
        'is the key and never reaches the server. One file is sent as it is; several files or a ' +
        'folder are packed into one ZIP archive as they stream (empty files and folders, modes and ' +
        'modification times kept). Symbolic links inside folders are skipped.',
    )
    .argument('<paths...>', 'files and folders to send')
    .option('-e, --expire <duration>', "expiry such as 1h, 1d or 7d (allowed values: the server's)")
    .option('-d, --downloads <count>', "downloads allowed (allowed values: the server's)")
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
      ),
    )
    .action((paths: string[], options: SendOptions) => runSend(paths, options, ctx))
}
