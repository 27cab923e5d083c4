/**
 * Build step that makes the web app verifiable: it pins every script, module preload and
 * stylesheet of index.html with subresource integrity, adds an import map whose `integrity` entries
 * pin every other module the app loads later, and writes `integrity.json` (a WEBCAT-shaped manifest
 * of every file's SHA-256, the WebAssembly hashes and the policy the server sends). It touches only
 * the build's output.
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative, resolve, sep } from 'node:path'

import { contentSecurityPolicy, type WebIntegrityManifest } from '@fileshare/protocol'
import type { Plugin } from 'vite'

/** The manifest's file name in the build's output, served at /integrity.json. */
export const MANIFEST_FILE = 'integrity.json'

/** Where the built files are served from; Vite's default `base`. */
const BASE = '/'

export function sriOf(bytes: string | Uint8Array): string {
  return `sha384-${createHash('sha384').update(bytes).digest('base64')}`
}

export function sha256Hex(bytes: string | Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

/** The CSP source that allows one inline element with exactly this text. */
export function cspHashOf(text: string): string {
  return `sha256-${createHash('sha256').update(text).digest('base64')}`
}

interface OutputFile {
  type: 'chunk' | 'asset'
  fileName: string
  code?: string
  source?: string | Uint8Array
}

function bytesOf(file: OutputFile): string | Uint8Array {
  return file.type === 'chunk' ? (file.code ?? '') : (file.source ?? '')
}

/**
 * Adds `integrity` to each script and link tag of the page that names a file of the build, and an
 * import map (before the first module script) pinning every JavaScript file of the build.
 * Returns the new page and the import map's text, whose hash the policy must allow.
 */
export function pinPage(
  html: string,
  files: ReadonlyMap<string, string | Uint8Array>,
): { html: string; importMap: string } {
  const pinned = html.replace(/<(script|link)\b[^>]*>/g, (tag) => {
    const url = /\s(?:src|href)="([^"]+)"/.exec(tag)?.[1]
    if (url === undefined || !url.startsWith(BASE) || tag.includes(' integrity=')) return tag
    const bytes = files.get(url.slice(BASE.length))
    if (bytes === undefined) return tag
    return tag.replace(/\s*\/?>$/, (end) => ` integrity="${sriOf(bytes)}"${end}`)
  })
  const integrity: Record<string, string> = {}
  for (const [name, bytes] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (name.endsWith('.js')) integrity[`${BASE}${name}`] = sriOf(bytes)
  }
  const importMap = JSON.stringify({ imports: {}, integrity })
  const at = pinned.indexOf('<script type="module"')
  if (at < 0) throw new Error('index.html has no module script to pin')
  const element = `<script type="importmap">${importMap}</script>\n    `
  return { html: pinned.slice(0, at) + element + pinned.slice(at), importMap }
}

/** SHA-256 of each WebAssembly module embedded as base64 in the built JavaScript. */
export function embeddedWasmHashes(sources: Iterable<string>): string[] {
  const hashes = new Set<string>()
  for (const source of sources) {
    // "AGFzbQ" is base64 of the module magic "\0asm"; the encoding runs to the closing quote.
    for (const match of source.matchAll(/AGFzbQ[A-Za-z0-9+/]*={0,2}/g)) {
      const bytes = Buffer.from(match[0], 'base64')
      if (bytes.length > 8 && bytes.readUInt32LE(0) === 0x6d736100) hashes.add(sha256Hex(bytes))
    }
  }
  return [...hashes].sort()
}

function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .filter((name) => name !== MANIFEST_FILE)
    .sort()
}

/** The manifest of a finished build folder, whose index.html carries the import map. */
export function manifestOf(
  outDir: string,
  options: { appVersion: string; appUrl: string; importMap: string },
): WebIntegrityManifest {
  const files: Record<string, string> = {}
  const scripts: string[] = []
  for (const name of filesUnder(outDir)) {
    const bytes = readFileSync(join(outDir, name))
    files[`${BASE}${name}`] = sha256Hex(bytes)
    if (name.endsWith('.js')) scripts.push(bytes.toString('latin1'))
  }
  // The page is served for the app's root (and every page path) as well as under its own name.
  const page = files[`${BASE}index.html`]
  if (page === undefined) throw new Error('the build has no index.html')
  files[BASE] = page
  return {
    manifest: {
      app_url: options.appUrl,
      app_version: options.appVersion,
      default_csp: contentSecurityPolicy({ scriptHashes: [cspHashOf(options.importMap)] }),
      files: Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1))),
      wasm: embeddedWasmHashes(scripts),
    },
    signatures: {},
  }
}

export function integrityPlugin(options: { appVersion: string; appUrl: string }): Plugin {
  let outDir = ''
  let importMap: string | undefined
  return {
    name: 'fileshare-integrity',
    apply: 'build',
    enforce: 'post',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir)
    },
    generateBundle: {
      order: 'post',
      handler(_output, bundle) {
        const page = bundle['index.html'] as OutputFile | undefined
        if (page === undefined) return
        const files = new Map<string, string | Uint8Array>()
        for (const file of Object.values(bundle) as OutputFile[]) {
          if (file.fileName !== 'index.html') files.set(file.fileName, bytesOf(file))
        }
        const pinned = pinPage(String(page.source), files)
        page.source = pinned.html
        importMap = pinned.importMap
      },
    },
    closeBundle() {
      if (importMap === undefined) return
      const manifest = manifestOf(outDir, { ...options, importMap })
      writeFileSync(join(outDir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`)
    },
  }
}
