import { describe, expect, it } from 'vitest'

import { gzippedSize, initialChunks } from './vite-plugin-budget'

function chunk(fileName: string, imports: string[], extra: object = {}) {
  return {
    type: 'chunk' as const,
    fileName,
    code: `/* ${fileName} */`,
    isEntry: false,
    imports,
    facadeModuleId: null,
    ...extra,
  }
}

describe('initialChunks', () => {
  it('counts the entry, the page and their static imports, not other pages', () => {
    const bundle = {
      'index.js': chunk('index.js', ['shared.js'], { isEntry: true }),
      'shared.js': chunk('shared.js', []),
      'Upload.js': chunk('Upload.js', ['ui.js', 'shared.js'], {
        facadeModuleId: '/app/src/routes/Upload.svelte',
      }),
      'ui.js': chunk('ui.js', []),
      'Download.js': chunk('Download.js', ['heavy.js'], {
        facadeModuleId: '/app/src/routes/Download.svelte',
      }),
      'heavy.js': chunk('heavy.js', []),
      'style.css': { type: 'asset' as const },
    }
    const names = initialChunks(bundle, 'src/routes/Upload.svelte').map((c) => c.fileName)
    expect(names.sort()).toEqual(['Upload.js', 'index.js', 'shared.js', 'ui.js'])
  })

  it('fails when the page is not a chunk of its own', () => {
    expect(() => initialChunks({}, 'src/routes/Upload.svelte')).toThrow(/No chunk/)
  })

  it('measures gzipped bytes', () => {
    expect(gzippedSize('a'.repeat(10_000))).toBeLessThan(100)
  })
})
