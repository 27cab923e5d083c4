/**
 * Build check of the upload page's weight: sums the gzipped size of the JavaScript a visit to `/`
 * loads before the user does anything (the entry, the upload page's chunk, and everything they
 * import statically), prints it, and fails the build above the budget.
 */
import { gzipSync } from 'node:zlib'

import type { Plugin } from 'vite'

interface ChunkLike {
  type: 'chunk'
  fileName: string
  code: string
  isEntry: boolean
  imports: string[]
  facadeModuleId: string | null
}

type BundleLike = Record<string, ChunkLike | { type: 'asset' }>

/** The chunks loaded by a visit to the page whose module id ends with `pageModule`. */
export function initialChunks(bundle: BundleLike, pageModule: string): ChunkLike[] {
  const chunks = Object.values(bundle).filter((c): c is ChunkLike => c.type === 'chunk')
  const byName = new Map(chunks.map((c) => [c.fileName, c]))
  const roots = chunks.filter(
    (c) => c.isEntry || (c.facadeModuleId?.replaceAll('\\', '/').endsWith(pageModule) ?? false),
  )
  if (!roots.some((c) => !c.isEntry)) {
    throw new Error(`No chunk for ${pageModule}; is it loaded with import()?`)
  }
  const seen = new Set<string>()
  const visit = (chunk: ChunkLike) => {
    if (seen.has(chunk.fileName)) return
    seen.add(chunk.fileName)
    for (const name of chunk.imports) {
      const next = byName.get(name)
      if (next) visit(next)
    }
  }
  roots.forEach(visit)
  return [...seen].map((name) => byName.get(name)!)
}

export function gzippedSize(code: string): number {
  return gzipSync(code, { level: 9 }).length
}

export function budgetPlugin(options: { pageModule: string; maxGzipBytes: number }): Plugin {
  return {
    name: 'fileshare-budget',
    apply: 'build',
    generateBundle(_output, bundle) {
      const initial = initialChunks(bundle as unknown as BundleLike, options.pageModule)
      const total = initial.reduce((sum, c) => sum + gzippedSize(c.code), 0)
      const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`
      const line = `upload page initial JS: ${kb(total)} gzipped in ${initial.length} chunks (budget ${kb(options.maxGzipBytes)})`
      console.log(`\n${line}`)
      if (total > options.maxGzipBytes) this.error(`Over budget: ${line}`)
    },
  }
}
