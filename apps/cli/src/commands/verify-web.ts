/**
 * `fileshare verify-web <url>`: checks the web app a server hands out against an integrity
 * manifest, the one this command carries for its own release or one the user names.
 */
import { readFile } from 'node:fs/promises'
import { getAsset, isSea } from 'node:sea'

import {
  escapeControls,
  HEALTH_STATUS_OK,
  parseIntegrityManifest,
  type WebIntegrityManifest,
} from '@fileshare/protocol'
import { Command } from 'commander'

import type { Context } from '../lib/context.js'
import { CliError, EXIT, UsageError } from '../lib/errors.js'
import { addJsonOption, examples } from '../lib/options.js'
import { CARRIED_MANIFEST, verifyWebApp, type WebAppReport } from '../lib/verify-web.js'

const NOT_CARRIED =
  'This fileshare carries no manifest of the web app (it was built from source, not released): ' +
  "give --manifest with an integrity.json, such as the one a build of the server's version " +
  'writes to apps/web/dist/ or the one attached to its release'

async function carriedManifestText(): Promise<string> {
  try {
    if (isSea()) return getAsset(CARRIED_MANIFEST, 'utf8')
    return await readFile(new URL(`./${CARRIED_MANIFEST}`, import.meta.url), 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ERR_SINGLE_EXECUTABLE_APPLICATION_ASSET_NOT_FOUND') {
      throw new UsageError(NOT_CARRIED)
    }
    throw error
  }
}

export interface VerifyWebOptions {
  manifest?: string
  allowConnect?: string[]
  json?: boolean
}

async function readManifest(file: string | undefined): Promise<WebIntegrityManifest> {
  const text = file === undefined ? await carriedManifestText() : await readFile(file, 'utf8')
  const what = file ?? 'The carried manifest'
  try {
    return parseIntegrityManifest(JSON.parse(text) as unknown)
  } catch (error) {
    throw new UsageError(`${what} is not an integrity manifest: ${(error as Error).message}`)
  }
}

function parseTarget(url: string): URL {
  let target: URL
  try {
    target = new URL(url)
  } catch {
    throw new UsageError(
      `${url} is not an address: give the server's, as https://share.example.org`,
    )
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') {
    throw new UsageError(`${url} is not an http:// or https:// address`)
  }
  return target
}

/** The version the server reports on `GET /api/health`, or undefined when it says none. */
async function serverVersion(origin: string, send: typeof fetch): Promise<string | undefined> {
  const response = await send(new URL('/api/health', origin), { redirect: 'manual' })
  if (!response.ok) {
    await response.body?.cancel()
    return undefined
  }
  const body = (await response.json()) as { status?: unknown; version?: unknown }
  return body.status === HEALTH_STATUS_OK && typeof body.version === 'string'
    ? body.version
    : undefined
}

export async function runVerifyWeb(
  url: string,
  options: VerifyWebOptions,
  ctx: Context,
  send: typeof fetch = fetch,
): Promise<WebAppReport> {
  const output = ctx.output(options.json)
  const target = parseTarget(url)
  for (const origin of options.allowConnect ?? []) {
    if (!/^https?:\/\/[^/\s;,']+$/.test(origin)) {
      throw new UsageError(`--allow-connect takes an origin such as https://s3.example.org`)
    }
  }
  const carried = options.manifest === undefined
  const manifest = await readManifest(options.manifest)
  const version = manifest.manifest.app_version
  const running = await serverVersion(target.origin, send).catch(() => undefined)
  if (running !== undefined && running !== version) {
    const line = `The server runs version ${running}; the manifest is of version ${version}`
    if (carried) {
      throw new UsageError(
        `${line}: run the fileshare of release ${running}, or give --manifest with its ` +
          'integrity.json',
      )
    }
    output.warn(`${line}.`)
  }

  const report = await verifyWebApp(target, manifest, {
    allowConnect: options.allowConnect ?? [],
    pagePath: target.pathname,
    fetch: send,
  })
  const verified = report.faults.length === 0
  if (output.json) output.result({ ...report, version, verified })
  else if (verified) {
    output.print(
      `The web app at ${report.origin} matches the manifest of version ${version}: ` +
        `${report.checked} files and their Content-Security-Policy.`,
    )
  } else {
    for (const fault of report.faults) {
      output.print(`${fault.what}: ${escapeControls(fault.detail)}`)
    }
  }
  if (!verified) {
    const count = report.faults.length
    output.info(
      `The web app at ${report.origin} does not match the manifest of version ${version} ` +
        `(${count} ${count === 1 ? 'difference' : 'differences'}).`,
    )
    throw new CliError('the web app does not match its manifest', EXIT.USAGE, { printed: true })
  }
  return report
}

export function verifyWebCommand(ctx: Context): Command {
  const command = new Command('verify-web')
    .summary("check the web app a server hands out against the release's manifest")
    .description(
      'Fetches the web app of the server at <url> and compares every file with an integrity ' +
        'manifest (its SHA-256), the Content-Security-Policy the server sends with it, and ' +
        "what the page loads. By default the manifest is the one of this fileshare's release, " +
        "which must be the server's version; --manifest names another. Exits 0 when everything " +
        'matches, 1 naming each difference. It checks what this machine was served now: ' +
        'another visitor, or a later visit, may be served other code.',
    )
    .argument('<url>', "the server's address, or a link of it")
    .option('--manifest <file>', 'the integrity.json to compare with (a build of the same version)')
    .option(
      '--allow-connect <origin...>',
      "origins the server's policy may add to connect-src (its S3 endpoint)",
    )
  addJsonOption(command)
  return command
    .addHelpText(
      'after',
      examples(
        'fileshare verify-web https://share.example.org',
        'fileshare verify-web https://share.example.org --manifest integrity.json',
      ),
    )
    .action(async (url: string, options: VerifyWebOptions) => {
      await runVerifyWeb(url, options, ctx)
    })
}
