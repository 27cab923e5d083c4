import { cspDirectives } from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import { pageReferences, policyDifferences } from './verify-web.js'

describe('pageReferences', () => {
  it('finds what a page loads, its inline scripts and its import maps', () => {
    const refs = pageReferences(
      '<link rel="icon" href="/favicon.svg"><script type="importmap">{"imports":{"x":"/a.js"},' +
        '"integrity":{"/b.js":"sha384-x"}}</script><script type="module" src="/c.js"></script>' +
        '<img srcset="/d.png 1x, https://e.example/e.png 2x"><script>alert(1)</script>' +
        '<iframe src=/frame.html></iframe>',
    )
    expect(refs.urls).toEqual(
      expect.arrayContaining(['/favicon.svg', '/a.js', '/b.js', '/c.js', '/d.png']),
    )
    expect(refs.urls).toContain('https://e.example/e.png')
    // An unquoted address is reported whole rather than missed.
    expect(refs.urls).toContain('<iframe src=/frame.html>')
    expect(refs.inlineScripts).toEqual(['alert(1)'])
    expect(refs.importMaps).toHaveLength(1)
  })
})

describe('policyDifferences', () => {
  it('names each source added or missing, directive by directive', () => {
    expect(
      policyDifferences(
        "default-src 'self'; connect-src 'self' https://x.example; img-src *",
        cspDirectives("default-src 'self'; connect-src 'self'; worker-src 'self'"),
      ),
    ).toEqual([
      'connect-src adds https://x.example',
      'worker-src is missing',
      'img-src is added: *',
    ])
    expect(policyDifferences("A 'self';b  x", cspDirectives("a 'self'; b x"))).toEqual([])
  })
})
