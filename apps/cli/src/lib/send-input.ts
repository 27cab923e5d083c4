/**
 * What `send` and `request send` upload: the files and folders named, or, for the path `-`,
 * standard input as one file, spooled first (stdin-spool.ts) since an upload declares its size
 * before its first byte.
 */
import { printable, unsafeEntryName } from './entry-name.js'
import { UsageError } from './errors.js'
import { mediaTypeOf } from './media-type.js'
import {
  checkPayloadFits,
  localUtcOffsetMinutes,
  preparePayload,
  type Payload,
  type PayloadOptions,
} from './node-source.js'
import type { Output } from './output.js'
import { spoolInput } from './stdin-spool.js'

/** The path that stands for standard input, and the file name it gets without `--name`. */
export const STDIN_PATH = '-'
export const STDIN_NAME = 'stdin'

export interface SendInput {
  payload: Payload
  /** Frees what the payload holds (the spool of standard input). */
  close(): Promise<void>
}

/**
 * Whether `paths` means standard input, after checking its use: `-` alone, not a terminal, and
 * `--name` (a plain file name) only with it.
 */
export function readsStdin(
  paths: readonly string[],
  name: string | undefined,
  stdin: { isTTY?: boolean },
): boolean {
  if (!paths.includes(STDIN_PATH)) {
    if (name !== undefined) {
      throw new UsageError('--name names what is read from standard input: give - as the path')
    }
    return false
  }
  if (paths.length > 1) {
    throw new UsageError('- (standard input) is sent alone, not with other paths')
  }
  if (stdin.isTTY) {
    throw new UsageError('- reads standard input, which is a terminal here: pipe the data in')
  }
  if (name !== undefined && (unsafeEntryName(name) !== null || name.includes('/'))) {
    throw new UsageError(`--name ${printable(name)} is not a plain file name`)
  }
  return true
}

/**
 * The payload of `paths`; standard input (when `readsStdin` said so) is refused past `maxBytes`
 * while it is read, and when it holds nothing.
 */
export async function openSendInput(
  paths: readonly string[],
  o: {
    fromStdin: boolean
    name: string | undefined
    stdin: NodeJS.ReadableStream
    maxBytes: number
    warn: (line: string) => void
  } & PayloadOptions,
): Promise<SendInput> {
  if (!o.fromStdin) {
    const payload = await preparePayload(paths, o.warn, o)
    return { payload, close: () => Promise.resolve() }
  }
  const spool = await spoolInput(o.stdin, o.maxBytes)
  // Nothing at all is a producer that failed or was cancelled (a screenshot tool), not a file.
  if (spool.size === 0) {
    await spool.close()
    throw new UsageError('Standard input is empty: nothing to send')
  }
  const name = o.name ?? STDIN_NAME
  return {
    payload: {
      source: { size: spool.size, stream: () => spool.stream() },
      metadata: { archive: false, files: [{ name, type: mediaTypeOf(name), size: spool.size }] },
      fileCount: 1,
      files: 1,
      contentBytes: spool.size,
      summary: name,
      skipped: [],
    },
    close: () => spool.close(),
  }
}

/** What `send` and `request send` were told to upload: the paths, and `--name` for `-`. */
export interface SendSources {
  paths: readonly string[]
  /** The paths are `-`, checked by `readsStdin`. */
  fromStdin: boolean
  name: string | undefined
  stdin: NodeJS.ReadableStream
}

/** The sources of `paths` and `--name`, refused as `readsStdin` refuses them. */
export function sendSources(
  paths: readonly string[],
  name: string | undefined,
  stdin: NodeJS.ReadableStream & { isTTY?: boolean },
): SendSources {
  return { paths, fromStdin: readsStdin(paths, name, stdin), name, stdin }
}

/**
 * The payload of a new upload from `sources`, refused unless it fits the `limits` of `taker` (the
 * server or the request), handed to `use` and closed after; `output` warns of what is skipped.
 */
export async function withSendInput<T>(
  sources: SendSources,
  fits: { limits: { maxFiles: number; maxEncryptedBytes: number }; taker: string },
  output: Output,
  use: (payload: Payload) => Promise<T>,
): Promise<T> {
  const input = await openSendInput(sources.paths, {
    fromStdin: sources.fromStdin,
    name: sources.name,
    stdin: sources.stdin,
    maxBytes: fits.limits.maxEncryptedBytes,
    warn: (line) => output.warn(line),
    utcOffsetMinutes: localUtcOffsetMinutes(),
  })
  try {
    checkPayloadFits(input.payload, fits.limits, fits.taker)
    return await use(input.payload)
  } finally {
    await input.close()
  }
}
