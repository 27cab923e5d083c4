/**
 * Markdown notes rendered to HTML that is safe to insert into the page: markdown-it with raw HTML
 * off (every `<tag>` in the note shows as text), links only to http, https and mailto addresses,
 * opened in a new tab without opener or referrer, and images written as links, because a note must
 * not make the browser fetch from other hosts (the CSP would refuse them anyway). Headings start at
 * h2, below the page's title. A list item starting with `[ ]` or `[x]` is a task: a disabled
 * checkbox whose label is the item's text, markup of our own. markdown-it loads
 * on first use, so pages that never show markdown never download it.
 */
type MarkdownIt = InstanceType<typeof import('markdown-it').default>
type Token = import('markdown-it').Token
type TokenClass = typeof import('markdown-it').Token

const ALLOWED_LINK = /^(?:https?:|mailto:)/i

let renderer: Promise<MarkdownIt> | undefined

/** Whether markdown may link to `url`; anything else (javascript:, data:, relative) stays text. */
export function isAllowedLink(url: string): boolean {
  return ALLOWED_LINK.test(url.trim())
}

/** The sanitised HTML of `text`. */
export async function renderMarkdown(text: string): Promise<string> {
  renderer ??= createRenderer()
  return (await renderer).render(text)
}

async function createRenderer(): Promise<MarkdownIt> {
  const { default: MarkdownItClass } = await import('markdown-it')
  const md = new MarkdownItClass({ html: false, linkify: true, typographer: false })
  md.validateLink = isAllowedLink

  const escape = md.utils.escapeHtml
  md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
    const token = tokens[idx]!
    token.attrSet('target', '_blank')
    token.attrSet('rel', 'noopener noreferrer')
    return self.renderToken(tokens, idx, options)
  }
  // The page's own title is the one h1: a note's headings start one level below it (# is h2,
  // ###### stays h6), so the outline that screen readers navigate by stays whole.
  md.core.ruler.push('headings_below_title', (state) => {
    for (const token of state.tokens) {
      if (token.type === 'heading_open' || token.type === 'heading_close') {
        token.tag = `h${Math.min(6, Number(token.tag.slice(1)) + 1)}`
      }
    }
  })
  md.core.ruler.push('task_lists', markTasks)
  md.renderer.rules.task_open = (tokens, idx) =>
    `<label class="md-task"><input type="checkbox" disabled${tokens[idx]!.markup === ' ' ? '' : ' checked'}> `
  md.renderer.rules.task_close = () => '</label>'
  md.renderer.rules.image = (tokens, idx, options, env, self) => {
    const token = tokens[idx]!
    const src = String(token.attrGet('src') ?? '')
    const label = String(self.renderInlineAsText(token.children ?? [], options, env)) || src
    return (
      `<a href="${escape(src)}" target="_blank" rel="noopener noreferrer" class="md-image">` +
      `${escape(label)}</a>`
    )
  }
  return md
}

const TASK_MARKER = /^\[([ xX])\] /

/**
 * Turns the first paragraph of a list item that starts with `[ ] ` or `[x] ` into a task: the
 * marker goes, and the paragraph's content is wrapped in `task_open` (the checkbox; its `markup`
 * is the marker's `x` when done) and `task_close`.
 */
function markTasks(state: { tokens: Token[]; Token: TokenClass }): void {
  const tokens = state.tokens
  for (let i = 2; i < tokens.length; i++) {
    const inline = tokens[i]!
    if (inline.type !== 'inline' || tokens[i - 1]!.type !== 'paragraph_open') continue
    const item = tokens[i - 2]!
    const first = inline.children?.[0]
    const marker = first?.type === 'text' ? TASK_MARKER.exec(first.content) : null
    if (item.type !== 'list_item_open' || !first || !marker) continue
    first.content = first.content.slice(marker[0].length)
    const open = new state.Token('task_open', '', 0)
    open.markup = marker[1]!
    item.attrJoin('class', 'md-task-item')
    inline.children = [open, ...inline.children!, new state.Token('task_close', '', 0)]
  }
}
