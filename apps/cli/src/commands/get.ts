/** `fileshare get <link>`: shows what a link holds, then downloads, decrypts and saves it. */
import { relative } from 'node:path'

import {
  downloadFile,
  filesOf,
  isFolderEntry,
  inspectFile,
  plainSize,
  unlockFile,
  type FileMetadata,
} from '@fileshare/protocol'
import { Command } from 'commander'

import { createApi } from '../lib/api.js'
import type { Context } from '../lib/context.js'
import { printable } from '../lib/entry-name.js'
import { parseFileLink } from '../lib/links.js'
import { addJsonOption, addPasswordOption, addQuietOption, examples } from '../lib/options.js'
import { passwordForLink } from '../lib/prompts.js'
import { checkDestination, receive } from '../lib/receive.js'
import { formatBytes, formatWhen } from '../lib/units.js'
import { nodeRecords } from '../lib/node-records.js'

export interface GetOptions {
  output?: string
  force?: boolean
  extract?: boolean
  password?: string | boolean
  json?: boolean
  quiet?: boolean
}

export async function runGet(linkText: string, options: GetOptions, ctx: Context): Promise<void> {
  const output = ctx.output(options.json, options.quiet)
  const { baseUrl, link } = parseFileLink(linkText)
  const api = createApi(baseUrl)
  const info = await inspectFile(api, link)
  const downloadsLeft = info.maxDownloads - info.downloadCount
  const terms =
    `${downloadsLeft} of ${info.maxDownloads} download${info.maxDownloads === 1 ? '' : 's'} left, ` +
    `expires ${formatWhen(info.expiresAt)}`

  let password: string | undefined
  if (link.hasPassword || info.hasPassword) {
    // Nothing is counted before the password is checked; say what the link holds first.
    output.info(`Password-protected, ${formatBytes(plainSize(info.size))}, ${terms}`)
    password = await passwordForLink(options.password, ctx.prompter, ctx.env)
  }
  const unlocked = await unlockFile(api, link, info, password)
  const metadata = unlocked.metadata
  output.info(`${describeContent(metadata, plainSize(info.size))}, ${terms}`)
  if (metadata?.archive) {
    const shown = metadata.files.slice(0, LISTED_NAMES)
    for (const file of shown) {
      const size = isFolderEntry(file) ? '' : `  ${formatBytes(file.size)}`
      output.info(`  ${printable(file.name)}${size}`)
    }
    if (metadata.files.length > shown.length) {
      output.info(`  … and ${metadata.files.length - shown.length} more`)
    }
  }
  const destination = {
    dir: options.output ?? '.',
    force: options.force === true,
    extract: options.extract !== false,
  }
  // Names fall back to the link's id, never to an id the server answered.
  await checkDestination(metadata, info.fileCount, link.id, destination)

  const download = await downloadFile(api, unlocked, { signal: ctx.signal, cipher: nodeRecords })
  const received = await receive(download, metadata, link.id, destination, output)

  if (output.json) {
    output.result({
      id: link.id,
      archive: received.archive,
      size: received.bytes,
      paths: received.paths,
      folder: received.folder,
      downloadsLeft: downloadsLeft - 1,
    })
    return
  }
  if (received.folder !== null) {
    output.info(
      `The archive holds more than one top-level name; extracted into the new folder ` +
        `${printable(relative('.', received.folder))}:`,
    )
  } else {
    output.info(`Saved into ${destination.dir === '.' ? 'the current folder' : destination.dir}:`)
  }
  for (const name of received.shown) output.print(printable(name))
}

/** Names listed before a download; the rest are counted. */
const LISTED_NAMES = 20

/** `report.pdf, 1.72 MiB` or `3 files, 5.25 MiB`, from the metadata when the sender saved it. */
function describeContent(metadata: FileMetadata | null, payloadSize: number): string {
  if (!metadata) return formatBytes(payloadSize)
  const files = filesOf(metadata)
  const bytes = files.reduce((sum, f) => sum + f.size, 0)
  if (!metadata.archive) return `${printable(files[0]?.name ?? '?')}, ${formatBytes(bytes)}`
  return `${files.length} file${files.length === 1 ? '' : 's'}, ${formatBytes(bytes)}`
}

export function getCommand(ctx: Context): Command {
  const command = new Command('get')
    .summary('download and decrypt a shared file or archive')
    .description(
      'Shows what a share link holds (names, size, downloads left) without counting a download, ' +
        'asks for the password when the link has one, then downloads, decrypts and saves it. An ' +
        'archive is extracted: one top-level folder as it is, anything else into a new folder ' +
        'named fileshare-<id>; a hidden top-level name (.ssh) needs --force. Entries that would ' +
        'leave the folder, links and device files make it refused whole. Existing files are kept ' +
        'unless --force. A failed or tampered download leaves no file behind.',
    )
    .argument('<link>', 'the share link, with its #key')
    .option('-o, --output <dir>', 'folder to save into (default: the current folder)')
    .option('-f, --force', 'overwrite existing files; extract a hidden top-level name')
    .option('--no-extract', 'save an archive as a .zip file instead of extracting it')
  addPasswordOption(command, 'password of a protected link')
  addQuietOption(command)
  addJsonOption(command)
  return command
    .addHelpText(
      'after',
      examples(
        "fileshare get 'https://share.example.org/d/1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b#AQB…'",
        'fileshare get "$LINK" -o ~/Downloads --password',
      ),
    )
    .action((link: string, options: GetOptions) => runGet(link, options, ctx))
}
