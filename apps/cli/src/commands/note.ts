/**
 * `fileshare note [text | -]` creates an encrypted note; `note get <link>` prints one (and uses
 * up a view); `note info <link>` shows views left and expiry without using one.
 */
import { fstatSync } from 'node:fs'

import {
  NOTE_CONTENT_TYPES,
  createNote,
  escapeControls,
  inspectNote,
  parsePasswordList,
  unlockNote,
  viewNote,
  type NoteContentType,
} from '@fileshare/protocol'
import { Command, Option } from 'commander'

import { createApi, openSignedInServer } from '../lib/api.js'
import type { Context } from '../lib/context.js'
import { formatPasswordList } from '../lib/password-list-text.js'
import { UsageError } from '../lib/errors.js'
import { parseNoteLink } from '../lib/links.js'
import { record } from '../lib/history.js'
import {
  addJsonOption,
  addPasswordOption,
  addQrOption,
  addServerOption,
  chooseCount,
  chooseDuration,
  examples,
} from '../lib/options.js'
import { passwordForLink, passwordFromOption } from '../lib/prompts.js'
import { readStdin } from '../lib/stdin.js'
import { formatBytes, formatWhen } from '../lib/units.js'

export interface NoteOptions {
  type: NoteContentType
  views?: string
  expire?: string
  password?: string | boolean
  server?: string
  json?: boolean
  qr?: boolean
}

export async function runNote(
  text: string | undefined,
  options: NoteOptions,
  ctx: Context,
): Promise<void> {
  const output = ctx.output(options.json)
  const { baseUrl, api, config } = await openSignedInServer(options.server, ctx)
  const maxViews = chooseCount(
    '--views',
    options.views,
    config.noteViewOptions,
    config.noteDefaultViews,
  )
  const expireSec = chooseDuration(
    '--expire',
    options.expire,
    config.noteExpireOptions,
    config.noteDefaultExpire,
  )

  let content: string
  if (text === '-' || (text === undefined && ctx.stdin.isTTY !== true)) {
    content = await readStdin(ctx.stdin, config.noteMaxSize, 'The note')
  } else if (text === undefined) {
    const hint = 'give the text as an argument, or - to read it from standard input'
    content =
      options.type === 'password'
        ? await ctx.prompter.password('Password to share', { hint })
        : await ctx.prompter.text('Note', { hint })
  } else {
    content = text
  }
  if (content.length === 0) throw new UsageError('The note is empty')
  const size = Buffer.byteLength(content)
  if (size > config.noteMaxSize) {
    throw new UsageError(
      `The note is ${formatBytes(size)}; this server takes at most ${formatBytes(config.noteMaxSize)}`,
    )
  }
  const password = await passwordFromOption(options.password, ctx.prompter, {
    creating: true,
    env: ctx.env,
  })

  const note = await createNote(api, {
    text: content,
    contentType: options.type,
    maxViews,
    expireSec,
    ...(password !== undefined ? { password } : {}),
  })
  await record(
    ctx.history,
    {
      kind: 'note',
      id: note.id,
      server: baseUrl,
      createdAt: new Date().toISOString(),
      link: note.link,
      contentType: options.type,
      expiresAt: note.expiresAt,
      maxViews,
      ownerToken: note.ownerToken,
    },
    (line) => output.warn(line),
  )
  if (options.qr) await output.qr(note.link)
  if (output.json) {
    output.result({
      link: note.link,
      id: note.id,
      expiresAt: note.expiresAt,
      maxViews,
      contentType: options.type,
      hasPassword: password !== undefined,
    })
    return
  }
  output.info(
    `Note (${options.type}${password !== undefined ? ', password-protected' : ''}): ` +
      `${maxViews} view${maxViews === 1 ? '' : 's'}, expires ${formatWhen(note.expiresAt)}.`,
  )
  output.print(note.link)
}

/** A note's views used, allowed and left, in the order `note get` and `note info` print them. */
function viewsOf(note: { viewCount: number; maxViews: number }) {
  return {
    viewCount: note.viewCount,
    maxViews: note.maxViews,
    viewsLeft: note.maxViews - note.viewCount,
  }
}

export interface NoteReadOptions {
  password?: string | boolean
  json?: boolean
  raw?: boolean
}

export async function runNoteGet(
  linkText: string,
  options: NoteReadOptions,
  ctx: Context,
): Promise<void> {
  const output = ctx.output(options.json)
  const { baseUrl, link } = parseNoteLink(linkText)
  const api = createApi(baseUrl)
  const info = await inspectNote(api, link)
  let password: string | undefined
  if (link.hasPassword || info.hasPassword) {
    password = await passwordForLink(options.password, ctx.prompter, ctx.env)
  }
  const unlocked = await unlockNote(api, link, info, password)
  const viewed = await viewNote(api, unlocked)
  const views = viewsOf(viewed)
  if (output.json) {
    output.result({ id: info.id, text: viewed.text, contentType: viewed.contentType, ...views })
    return
  }
  // Security: the sender's text reaches a terminal with its control characters shown, not run.
  // A person reads a password list as its entries; a pipe, or --raw, gets the exact bytes.
  const terminal = ctx.stdout.isTTY === true && options.raw !== true
  const text =
    terminal && viewed.contentType === 'password'
      ? formatPasswordList(parsePasswordList(viewed.text))
      : viewed.text
  ctx.stdout.write(terminal ? escapeControls(text) : text)
  if (ctx.stdout.isTTY === true && !text.endsWith('\n')) ctx.stdout.write('\n')
  // Text without a last newline would run into this line where both streams go to one place.
  const apart = ctx.stdout.isTTY !== true && !text.endsWith('\n') && sameDestination(ctx)
  output.info(
    (apart ? '\n' : '') +
      (views.viewsLeft === 0
        ? 'That was the last view; the note is gone now.'
        : `${views.viewsLeft} view${views.viewsLeft === 1 ? '' : 's'} left.`),
  )
}

/** Whether standard output and error are one file or pipe (`2>&1`), by their device and inode. */
function sameDestination(ctx: Pick<Context, 'stdout' | 'stderr'>): boolean {
  const out = (ctx.stdout as { fd?: unknown }).fd
  const err = (ctx.stderr as { fd?: unknown }).fd
  if (typeof out !== 'number' || typeof err !== 'number') return false
  try {
    const [a, b] = [fstatSync(out), fstatSync(err)]
    return a.dev === b.dev && a.ino === b.ino
  } catch {
    return false
  }
}

export async function runNoteInfo(
  linkText: string,
  options: { json?: boolean },
  ctx: Context,
): Promise<void> {
  const output = ctx.output(options.json)
  const { baseUrl, link } = parseNoteLink(linkText)
  const info = await inspectNote(createApi(baseUrl), link)
  const views = viewsOf(info)
  if (output.json) {
    output.result({
      id: info.id,
      contentType: info.contentType,
      hasPassword: info.hasPassword,
      ...views,
      expiresAt: info.expiresAt,
      createdAt: info.createdAt,
    })
    return
  }
  output.print(`Type:       ${info.contentType}${info.hasPassword ? ' (password-protected)' : ''}`)
  output.print(`Views left: ${views.viewsLeft} of ${info.maxViews}`)
  output.print(`Expires:    ${formatWhen(info.expiresAt)}`)
}

export function noteCommand(ctx: Context): Command {
  const note = new Command('note')
    .summary('create an encrypted note; note get / note info read one')
    .description(
      'Encrypts a note on this machine and stores it; prints its link (the key is after #). The ' +
        'text is the argument, or standard input with - (or when it is not a terminal), or asked.',
    )
    .argument('[text]', 'the note, or - to read standard input')
    .addOption(
      new Option('-t, --type <type>', 'how readers see it')
        .choices(NOTE_CONTENT_TYPES)
        .default('text'),
    )
    .option('-v, --views <count>', "views allowed (allowed values: the server's)")
    .option('-e, --expire <duration>', "expiry such as 1h or 1d (allowed values: the server's)")
  addPasswordOption(note, 'protect the note with a password')
  addServerOption(note)
  addQrOption(note, 'the link')
  addJsonOption(note)
  note
    .addHelpText(
      'after',
      examples(
        "fileshare note 'the door code is 4711' --views 1",
        'fileshare note - --type code < script.py',
        'fileshare note --type password --password --expire 1h',
      ),
    )
    .action((text: string | undefined, options: NoteOptions) => runNote(text, options, ctx))

  const get = new Command('get')
    .summary('print a note to standard output (uses up one view)')
    .description(
      'Decrypts a note and prints its text to standard output. This uses up one of its views; ' +
        'the last view deletes it. Use `fileshare note info` to look without using one. On a ' +
        'terminal, control characters other than newline and tab are shown as \\xNN (so that ' +
        'escape sequences in the text do nothing) unless --raw; elsewhere the bytes are exact.',
    )
    .argument('<link>', 'the note link, with its #key')
    .option('--raw', 'print control characters as they are, even to a terminal')
  addPasswordOption(get, 'password of a protected note')
  addJsonOption(get)
  get
    .addHelpText(
      'after',
      examples("fileshare note get 'https://share.example.org/n/…#…' > secret.txt"),
    )
    .action((link: string, options: NoteReadOptions) => runNoteGet(link, options, ctx))

  const info = new Command('info')
    .summary('show views left and expiry of a note, without using a view')
    .argument('<link>', 'the note link')
  addJsonOption(info)
  info
    .addHelpText('after', examples("fileshare note info 'https://share.example.org/n/…#…'"))
    .action((link: string, options: { json?: boolean }) => runNoteInfo(link, options, ctx))

  return note.addCommand(get).addCommand(info)
}
