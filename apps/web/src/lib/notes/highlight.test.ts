import { describe, expect, it } from 'vitest'

import { AUTO, highlightCode, LANGUAGES, MAX_HIGHLIGHT_CHARS, PLAIN } from './highlight'

describe('highlightCode', () => {
  it('colours code in the chosen language', async () => {
    const out = await highlightCode('const x = "<b>"', 'javascript')
    expect(out.language).toBe('javascript')
    expect(out.html).toContain('<span class="hljs-keyword">const</span>')
    expect(out.html).toContain('&lt;b&gt;')
  })

  it('guesses the language when asked to', async () => {
    const out = await highlightCode(
      'def greet(name):\n    return f"hi {name}"\n\nprint(greet("x"))',
      AUTO,
    )
    expect(out.language).toBe('python')
    expect(out.html).toContain('hljs-')
  })

  it('escapes plain text and refuses to guess above the size limit', async () => {
    expect(await highlightCode('<script>&', PLAIN)).toEqual({
      html: '&lt;script&gt;&amp;',
      language: PLAIN,
    })
    const big = 'let a = 1\n'.repeat(MAX_HIGHLIGHT_CHARS / 10 + 1)
    expect((await highlightCode(big, AUTO)).language).toBe(PLAIN)
    expect((await highlightCode('x', 'no-such-language')).language).toBe(PLAIN)
  })

  it('never lets markup of the code through', async () => {
    for (const { id } of LANGUAGES) {
      const { html } = await highlightCode('<img src=x onerror=alert(1)> "</span><script>"', id)
      expect(html).not.toMatch(/<img|<script/)
    }
  })
})
