/** `fileshare get <link>`: shows what a link holds, then downloads, decrypts and saves it. */
import { relative } from 'node:path'

import {
  downloadFile,
  filesOf,
  isFolderEntry,
  inspectFile,
  openFileRanges,
  plainSize,
  ReadGrantLapsed,
  unlockFile,
  type FileMetadata,
} from '@fileshare/protocol'
import { Command } from 'commander'

import { createApi } from '../lib/api.js'
import type { Context } from '../lib/context.js'
import { printable } from '../lib/entry-name.js'
import { CliError, EXIT } from '../lib/errors.js'
import { parseFileLink } from '../lib/links.js'
import { addJsonOption, addPasswordOption, addQuietOption, examples } from '../lib/options.js'
import { passwordForLink } from '../lib/prompts.js'
import { checkDestination, isArchive, receive } from '../lib/receive.js'
import { extractSelected, readZip } from '../lib/extract.js'
import { UsageError } from '../lib/errors.js'
import { formatBytes, formatWhen } from '../lib/units.js'
import { nodeRecords } from '../lib/node-records.js'
import { addRetriesOption, chooseRetries, resumedLine } from '../lib/resuming.js'

export interface GetOptions {
  output?: string
  force?: boolean
  extract?: boolean
  password?: string | boolean
  json?: boolean
  retries?: string
  list?: boolean
  only?: string[]
  quiet?: boolean
}

export async function runGet(linkText: string, options: GetOptions, ctx: Context): Promise<void> {
  const output = ctx.output(options.json, options.quiet)
  const retryForMs = chooseRetries(options.retries)
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
    for (const file of shown) output.info(`  ${entryLine(file)}`)
    if (metadata.files.length > shown.length) {
      output.info(`  … and ${metadata.files.length - shown.length} more`)
    }
  }
  const destination = {
    dir: options.output ?? '.',
    force: options.force === true,
    extract: options.extract !== false,
  }
  if (options.list === true || options.only !== undefined) {
    if (!isArchive(metadata, info.fileCount)) {
      throw new UsageError(
        '--list and --only need a link to an archive (several files or a folder)',
      )
    }
    // One counted download, whose read grant then fetches the parts the archive is read from:
    // listing reads the end records and the directory, extracting the chosen entries' own data.
    const ranges = await openFileRanges(api, unlocked, { signal: ctx.signal, cipher: nodeRecords })
    const zip = await readZip(ranges)
    if (options.only === undefined) {
      const entries = zip.directory.entries.map((e) => ({ name: e.path, size: e.size }))
      if (output.json) return output.result({ id: link.id, entries })
      for (const entry of entries) output.print(entryLine(entry))
      return
    }
    const { entries } = await extractSelected(zip, destination.dir, options.only, {
      force: destination.force,
    })
    const paths = entries.map((e) => e.path)
    if (output.json) return output.result({ id: link.id, paths })
    output.info(`Saved into ${destination.dir === '.' ? 'the current folder' : destination.dir}:`)
    for (const path of paths) output.print(printable(relative('.', path)))
    return
  }
  // Names fall back to the link's id, never to an id the server answered.
  await checkDestination(metadata, info.fileCount, link.id, destination)

  const download = await downloadFile(api, unlocked, {
    signal: ctx.signal,
    cipher: nodeRecords,
    resume: { retryForMs, onResume: (event) => output.warn(resumedLine(event)) },
  })
  const received = await receive(download, metadata, link.id, destination, output).catch(
    (error: unknown) => {
      throw error instanceof ReadGrantLapsed
        ? grantLapsedError(error, downloadsLeft - 1, info.maxDownloads)
        : error
    },
  )

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

/** What to do when a download broke off past its read grant: a new one counts. */
function grantLapsedError(lapsed: ReadGrantLapsed, left: number, max: number): CliError {
  const again =
    left > 0
      ? `getting it again counts a download (${left} of ${max} left): run \`fileshare get\` again`
      : 'no downloads are left to get it again'
  return new CliError(
    `The download broke off at ${formatBytes(lapsed.receivedBytes)} and its read grant has ` +
      `expired; ${again}`,
    EXIT.FAILED,
    { cause: lapsed },
  )
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
        'unless --force. A failed or tampered download leaves no file behind. A download that ' +
        'breaks off is resumed from the byte it reached without counting again, for as long as ' +
        '--retries allows and the read grant of the counted download lasts.',
    )
    .argument('<link>', 'the share link, with its #key')
    .option('-o, --output <dir>', 'folder to save into (default: the current folder)')
    .option('-f, --force', 'overwrite existing files; extract a hidden top-level name')
    .option('--no-extract', 'save an archive as a .zip file instead of extracting it')
  command
    .option('--list', "list an archive's entries (name, size) without fetching all of it")
    .option('--only <paths...>', 'save only these entries of an archive (files or folders)')
  addRetriesOption(command)
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

/** An archive entry as a listing shows it: its name, and its size unless it names a folder. */
function entryLine(entry: { name: string; size: number }): string {
  return `${printable(entry.name)}${isFolderEntry(entry) ? '' : `  ${formatBytes(entry.size)}`}`
}
