/**
 * Checks a served web app against an integrity manifest: every file's SHA-256, the
 * Content-Security-Policy the server sends with it, and that the page loads nothing the manifest
 * does not list. Talks HTTP to the one origin it is given and follows no redirect; it reports what
 * it found and leaves the verdict's exit code to the command.
 */
import { createHash } from 'node:crypto'

import { cspDirectives, scriptHashesOf, type WebIntegrityManifest } from '@fileshare/protocol'

/**
 * The manifest a release carries (docs/cli.md, "verify-web"): beside the package's code, or an
 * asset of the single executable.
 */
export const CARRIED_MANIFEST = 'web-integrity.json'

export interface WebAppFault {
  /** The path the fault concerns, or 'Content-Security-Policy'. */
  what: string
  detail: string
}

export interface WebAppReport {
  origin: string
  /** Paths fetched and compared. */
  checked: number
  faults: WebAppFault[]
}

export interface VerifyOptions {
  /** Origins the served policy may add to connect-src (an S3 endpoint the operator named). */
  allowConnect?: readonly string[]
  /** A page path besides `/` that must be the manifest's index.html (the link the user holds). */
  pagePath?: string
  fetch?: typeof fetch
}

/** Tags and attributes through which a page makes the browser load something. */
const LOADING_ATTRIBUTES =
  /<(script|link|img|iframe|frame|embed|object|source|audio|video|track|input|base)\b[^>]*>/gi

/** The URLs a page loads, its inline scripts, and the import map texts, as written. */
export function pageReferences(html: string): {
  urls: string[]
  inlineScripts: string[]
  importMaps: string[]
} {
  const urls: string[] = []
  for (const [tag] of html.matchAll(LOADING_ATTRIBUTES)) {
    for (const [, , value] of tag.matchAll(/\s(src|href|data|poster|srcset)\s*=\s*"([^"]*)"/gi)) {
      urls.push(...value!.split(',').map((part) => part.trim().split(/\s+/)[0]!))
    }
    if (/\s(src|href)\s*=\s*[^"\s>]/i.test(tag)) urls.push(tag)
  }
  const inlineScripts: string[] = []
  const importMaps: string[] = []
  for (const [, attributes, body] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    if (/\stype\s*=\s*"importmap"/i.test(attributes!)) {
      importMaps.push(body!)
      const map = parseImportMap(body!)
      urls.push(...map)
    } else if (!/\ssrc\s*=/i.test(attributes!) || body!.trim() !== '') {
      inlineScripts.push(body!.slice(0, 60))
    }
  }
  return { urls: urls.filter((u) => u !== ''), inlineScripts, importMaps }
}

/** Every address an import map names: its keys and values, and the modules it pins. */
function parseImportMap(text: string): string[] {
  try {
    const map = JSON.parse(text) as {
      imports?: Record<string, string>
      scopes?: Record<string, Record<string, string>>
      integrity?: Record<string, string>
    }
    const scoped = Object.entries(map.scopes ?? {}).flatMap(([scope, entries]) => [
      scope,
      ...Object.values(entries),
    ])
    return [...Object.values(map.imports ?? {}), ...scoped, ...Object.keys(map.integrity ?? {})]
  } catch {
    return ['(an import map that is not JSON)']
  }
}

/** How a served policy departs from the expected one, one line a directive; none when equal. */
export function policyDifferences(served: string, want: ReadonlyMap<string, string[]>): string[] {
  const have = cspDirectives(served)
  const lines: string[] = []
  for (const name of new Set([...want.keys(), ...have.keys()])) {
    const a = have.get(name)
    const b = want.get(name)
    if (a === undefined) lines.push(`${name} is missing`)
    else if (b === undefined) lines.push(`${name} is added: ${a.join(' ')}`)
    else {
      const added = a.filter((s) => !b.includes(s))
      const dropped = b.filter((s) => !a.includes(s))
      if (added.length > 0) lines.push(`${name} adds ${added.join(' ')}`)
      if (dropped.length > 0) lines.push(`${name} lacks ${dropped.join(' ')}`)
    }
  }
  return lines
}

/** The manifest's policy, with connect-src widened by the origins the user allowed. */
function expectedDirectives(
  manifest: WebIntegrityManifest,
  allowConnect: readonly string[],
): Map<string, string[]> {
  const directives = cspDirectives(manifest.manifest.default_csp)
  const connect = directives.get('connect-src')
  if (connect !== undefined) directives.set('connect-src', [...connect, ...allowConnect])
  return directives
}

const sha256 = (bytes: Uint8Array | string, encoding: 'hex' | 'base64' = 'hex') =>
  createHash('sha256').update(bytes).digest(encoding)

export async function verifyWebApp(
  base: URL,
  manifest: WebIntegrityManifest,
  options: VerifyOptions = {},
): Promise<WebAppReport> {
  const send = options.fetch ?? fetch
  const origin = base.origin
  const files = manifest.manifest.files
  const faults: WebAppFault[] = []
  const policy = expectedDirectives(manifest, options.allowConnect ?? [])
  const policyFaults = new Set<string>()
  const paths = Object.keys(files)
  const pageHash = files['/index.html'] ?? files['/']
  const pages = options.pagePath && !(options.pagePath in files) ? [options.pagePath] : []
  let page: string | undefined

  for (const path of [...paths, ...pages]) {
    const expected = files[path] ?? pageHash
    let response: Response
    try {
      response = await send(new URL(path, origin), { redirect: 'manual', cache: 'no-store' })
    } catch (error) {
      faults.push({ what: path, detail: `could not be fetched (${(error as Error).message})` })
      continue
    }
    if (response.status !== 200) {
      const to = response.headers.get('location')
      faults.push({
        what: path,
        detail: `answered ${response.status}${to === null ? '' : ` (to ${to})`}`,
      })
      await response.body?.cancel()
      continue
    }
    const bytes = new Uint8Array(await response.arrayBuffer())
    if (sha256(bytes) !== expected) faults.push({ what: path, detail: 'differs from the manifest' })
    if (path === '/') page = new TextDecoder().decode(bytes)
    // Each answer carries its own policy, and a worker's script runs under the one it came with.
    const served = response.headers.get('content-security-policy')
    for (const line of served === null ? ['is not sent'] : policyDifferences(served, policy)) {
      policyFaults.add(line)
    }
  }
  for (const line of policyFaults) faults.push({ what: 'Content-Security-Policy', detail: line })

  if (page !== undefined) {
    const refs = pageReferences(page)
    for (const script of refs.inlineScripts) {
      faults.push({ what: '/', detail: `has an inline script: ${JSON.stringify(script)}…` })
    }
    for (const url of new Set(refs.urls)) {
      let target: URL | undefined
      try {
        target = new URL(url, new URL('/', origin))
      } catch {
        target = undefined
      }
      if (target === undefined || target.origin !== origin) {
        faults.push({ what: '/', detail: `loads ${url} from another origin` })
      } else if (!(target.pathname in files)) {
        faults.push({ what: '/', detail: `loads ${target.pathname}, which the manifest lacks` })
      }
    }
    // A browser ignores an import map its policy does not allow, and the modules it pins then
    // load unchecked.
    const allowed = scriptHashesOf(manifest.manifest.default_csp)
    for (const map of refs.importMaps) {
      const hash = `sha256-${sha256(map, 'base64')}`
      if (!allowed.includes(hash)) {
        faults.push({ what: '/', detail: 'has an import map that its policy does not allow' })
      }
    }
  }
  return { origin, checked: paths.length + pages.length, faults }
}
