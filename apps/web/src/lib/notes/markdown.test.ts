import { describe, expect, it } from 'vitest'

import { isAllowedLink, renderMarkdown } from './markdown'

describe('renderMarkdown', () => {
  it('renders ordinary markdown', async () => {
    const html = await renderMarkdown('# Title\n\n*a* **b** `c`\n\n- one\n- two\n\n```\ncode\n```')
    expect(html).toContain('<h2>Title</h2>')
    expect(html).toContain('<em>a</em> <strong>b</strong> <code>c</code>')
    expect(html).toContain('<li>one</li>')
    expect(html).toContain('<pre><code>code\n</code></pre>')
  })

  it('starts headings below the page title: # is h2 and ###### stays h6', async () => {
    const html = await renderMarkdown('# One\n\n## Two\n\n##### Five\n\n###### Six\n\nTitle\n===')
    expect(html).not.toContain('<h1')
    expect(html).toContain('<h2>One</h2>')
    expect(html).toContain('<h3>Two</h3>')
    expect(html).toContain('<h6>Five</h6>')
    expect(html).toContain('<h6>Six</h6>')
    expect(html).toContain('<h2>Title</h2>')
  })

  it('shows a task list as disabled checkboxes labelled by their text, still escaped', async () => {
    const html = await renderMarkdown('- [x] done\n- [ ] to do <b>now</b>\n- plain [ ] item')
    expect(html).toContain(
      '<li class="md-task-item"><label class="md-task"><input type="checkbox" disabled checked> done</label></li>',
    )
    expect(html).toContain(
      '<label class="md-task"><input type="checkbox" disabled> to do &lt;b&gt;now&lt;/b&gt;</label>',
    )
    expect(html).toContain('<li>plain [ ] item</li>')
    expect(html).not.toContain('[x]')
  })

  it('shows raw HTML as text: no element of the note reaches the page', async () => {
    const html = await renderMarkdown('<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>')
    expect(html).not.toMatch(/<script|<img/i)
    expect(html).toContain('&lt;script&gt;')
  })

  it('links only to http, https and mailto: script URLs cannot run', async () => {
    const html = await renderMarkdown(
      '[a](javascript:alert(1)) [b](JaVaScRiPt:x) <javascript:alert(1)> [c](data:text/html,x) [d](/rel) [e](#frag)',
    )
    expect(html).not.toMatch(/href=/)
    const ok = await renderMarkdown('[s](https://example.org/?q=1&r=2) <mailto:a@example.org>')
    expect(ok).toContain(
      '<a href="https://example.org/?q=1&amp;r=2" target="_blank" rel="noopener noreferrer">s</a>',
    )
    expect(ok).toContain('href="mailto:a@example.org"')
  })

  it('writes images as links so the note loads nothing from other hosts', async () => {
    const html = await renderMarkdown('![a "cat"](https://evil.example/cat.png)')
    expect(html).not.toContain('<img')
    expect(html).toContain(
      '<a href="https://evil.example/cat.png" target="_blank" rel="noopener noreferrer" class="md-image">a &quot;cat&quot;</a>',
    )
    expect(await renderMarkdown('![x](data:image/png;base64,AAAA)')).not.toMatch(/<img|href=/)
  })

  it('links bare addresses', async () => {
    expect(await renderMarkdown('see https://example.org')).toContain(
      '<a href="https://example.org" target="_blank" rel="noopener noreferrer">',
    )
  })
})

describe('isAllowedLink', () => {
  it('accepts the three schemes only', () => {
    expect(isAllowedLink(' HTTPS://x')).toBe(true)
    expect(isAllowedLink('mailto:x@y')).toBe(true)
    expect(isAllowedLink('ftp://x')).toBe(false)
    expect(isAllowedLink('vbscript:x')).toBe(false)
  })
})
