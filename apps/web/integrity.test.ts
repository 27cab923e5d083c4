/**
 * The built app (dist/, made by the build before the tests) against its integrity manifest and
 * the rules a WEBCAT-enrolled app must follow: every file hashed, every tag and module pinned, no
 * script in the page but the import map whose hash the policy names.
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

import { cspDirectives, parseIntegrityManifest, scriptHashesOf } from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import { cspHashOf, embeddedWasmHashes, pinPage, sriOf } from './vite-plugin-integrity'

const DIST = fileURLToPath(new URL('./dist', import.meta.url))

function builtFiles(): string[] {
  return readdirSync(DIST, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(DIST, join(entry.parentPath, entry.name)).split(sep).join('/'))
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
const read = (name: string) => readFileSync(join(DIST, name))

/** The faults of a policy under WEBCAT's CSP rules (webcat-spec, csp.md); none when it passes. */
export function webcatPolicyFaults(policy: string): string[] {
  const faults: string[] = []
  if (policy.includes(',')) faults.push('several policies')
  const d = cspDirectives(policy)
  const hash = /^'sha(256|384|512)-[A-Za-z0-9+/=]+'$/
  const only = (name: string, allowed: (value: string) => boolean) => {
    for (const value of d.get(name) ?? []) {
      if (!allowed(value.toLowerCase()) && !hash.test(value)) faults.push(`${name} ${value}`)
    }
  }
  const defaultSrc = d.get('default-src')
  if (defaultSrc?.join(' ') !== "'none'") {
    for (const name of ['script-src', 'style-src', 'object-src', 'worker-src']) {
      if (!d.has(name)) faults.push(`no ${name}`)
    }
    if (!d.has('frame-src') && !d.has('child-src')) faults.push('no frame-src or child-src')
    if (d.get('object-src')?.join(' ') !== "'none'") faults.push("object-src is not 'none'")
  }
  only('default-src', (v) => v === "'self'" || v === "'none'")
  only('script-src', (v) => ["'self'", "'none'", "'wasm-unsafe-eval'"].includes(v))
  only('script-src-elem', (v) => ["'self'", "'none'", "'wasm-unsafe-eval'"].includes(v))
  only('style-src', (v) => ["'self'", "'none'", "'unsafe-inline'", "'unsafe-hashes'"].includes(v))
  only('worker-src', (v) => v === "'self'" || v === "'none'")
  for (const name of ['frame-src', 'child-src']) {
    only(name, (v) => ["'self'", "'none'", 'blob:', 'data:'].includes(v))
  }
  return faults
}

describe('the built web app', () => {
  const manifest = parseIntegrityManifest(JSON.parse(read('integrity.json').toString('utf8')))
  const page = read('index.html').toString('utf8')

  it('lists every file of the build with its SHA-256, and nothing else', () => {
    const expected: Record<string, string> = { '/': sha256(read('index.html')) }
    for (const name of builtFiles()) {
      if (name !== 'integrity.json') expected[`/${name}`] = sha256(read(name))
    }
    expect(manifest.manifest.files).toEqual(expected)
    expect(manifest.manifest.app_version).toBe(
      JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')).version,
    )
  })

  it('pins every script, module preload and stylesheet of index.html', () => {
    const tags = [
      ...page.matchAll(/<(?:script|link)\b[^>]*\s(?:src|href)="(\/assets\/[^"]+)"[^>]*>/g),
    ]
    expect(tags.length).toBeGreaterThan(2)
    for (const [tag, url] of tags) {
      expect(tag).toContain(`integrity="${sriOf(read(url!.slice(1)))}"`)
    }
    expect(page).toMatch(/<link rel="stylesheet"[^>]+integrity=/)
  })

  it("pins every module in an import map whose hash is the policy's only inline source", () => {
    const maps = [...page.matchAll(/<script type="importmap">([^<]*)<\/script>/g)]
    expect(maps).toHaveLength(1)
    const text = maps[0]![1]!
    const { integrity } = JSON.parse(text) as { integrity: Record<string, string> }
    const scripts = builtFiles().filter((name) => name.endsWith('.js') && name !== 'sw.js')
    expect(Object.keys(integrity).sort()).toEqual(scripts.map((name) => `/${name}`).sort())
    for (const name of scripts) expect(integrity[`/${name}`]).toBe(sriOf(read(name)))
    expect(scriptHashesOf(manifest.manifest.default_csp)).toEqual([cspHashOf(text)])
    // The import map must come before the first module it pins.
    expect(page.indexOf('type="importmap"')).toBeLessThan(page.indexOf('type="module"'))
  })

  it('carries no inline script, event handler or style, and loads nothing from elsewhere', () => {
    const scripts = [...page.matchAll(/<script\b([^>]*)>([^<]*)<\/script>/g)]
    for (const [, attributes, body] of scripts) {
      if (attributes!.includes('type="importmap"')) continue
      expect(body).toBe('')
      expect(attributes).toMatch(/\ssrc="\/[^/]/)
    }
    expect(page).not.toMatch(/\son[a-z]+=/i)
    expect(page).not.toMatch(/<style\b|\sstyle=/i)
    expect(page).not.toMatch(/(?:src|href)="(?:https?:)?\/\//)
  })

  it('sends a policy that WEBCAT accepts', () => {
    expect(webcatPolicyFaults(manifest.manifest.default_csp)).toEqual([])
  })

  it('names the WebAssembly the app compiles', () => {
    const scripts = builtFiles()
      .filter((name) => name.endsWith('.js'))
      .map((name) => read(name).toString('latin1'))
    expect(manifest.manifest.wasm).toEqual(embeddedWasmHashes(scripts))
    expect(manifest.manifest.wasm.length).toBeGreaterThan(0)
  })
})

describe('webcatPolicyFaults', () => {
  it('refuses what WEBCAT refuses', () => {
    expect(webcatPolicyFaults("default-src 'self'; script-src 'self' 'unsafe-inline'")).toEqual(
      expect.arrayContaining(["script-src 'unsafe-inline'", 'no style-src', 'no worker-src']),
    )
    expect(
      webcatPolicyFaults(
        "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; worker-src 'self' blob:",
      ),
    ).toEqual(['no frame-src or child-src', 'worker-src blob:'])
    expect(
      webcatPolicyFaults(
        "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; worker-src 'self'; frame-src 'self' blob: https://x.example",
      ),
    ).toEqual(['frame-src https://x.example'])
    expect(webcatPolicyFaults("default-src 'none'")).toEqual([])
  })
})

describe('pinPage', () => {
  it('pins the tags naming built files and leaves others alone', () => {
    const files = new Map<string, string>([
      ['assets/a.js', 'a'],
      ['assets/b.js', 'b'],
      ['assets/s.css', 's'],
    ])
    const { html, importMap } = pinPage(
      '<head><link rel="icon" href="/favicon.svg"><script type="module" src="/assets/a.js"></script>' +
        '<link rel="stylesheet" href="/assets/s.css"></head>',
      files,
    )
    expect(html).toContain(`<link rel="icon" href="/favicon.svg">`)
    expect(html).toContain(`src="/assets/a.js" integrity="${sriOf('a')}"></script>`)
    expect(html).toContain(`href="/assets/s.css" integrity="${sriOf('s')}">`)
    expect(JSON.parse(importMap)).toEqual({
      imports: {},
      integrity: { '/assets/a.js': sriOf('a'), '/assets/b.js': sriOf('b') },
    })
    expect(html.indexOf('importmap')).toBeLessThan(html.indexOf('type="module"'))
  })
})
