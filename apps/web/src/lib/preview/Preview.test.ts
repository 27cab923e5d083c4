// @vitest-environment jsdom
import { Blob as NodeBlob } from 'node:buffer'

import { cleanup, render, screen, waitFor } from '@testing-library/svelte'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

import Preview from './Preview.svelte'
import { previewPlanOf } from './preview-kind'

const created: Blob[] = []
const revoked: string[] = []

beforeEach(() => {
  created.length = 0
  revoked.length = 0
  // jsdom has no blob: URLs; these record what the preview asks of them.
  URL.createObjectURL = vi.fn((blob: Blob) => `blob:test/${created.push(blob)}`)
  URL.revokeObjectURL = vi.fn((url: string) => void revoked.push(url))
})
afterEach(() => cleanup())

function show(name: string, text: string, type = '') {
  const plan = previewPlanOf({ name, type, size: text.length })
  if (!plan) throw new Error(`no preview for ${name}`)
  // jsdom's Blob cannot be read; Node's can, as a browser's.
  const content = new NodeBlob([text], { type: plan.type }) as unknown as Blob
  return render(Preview, { plan, content, name })
}

describe('Preview', () => {
  it('shows an image only through <img>, from a blob: URL revoked when it goes', () => {
    const { container, unmount } = show('drawing.svg', '<svg xmlns="http://www.w3.org/2000/svg"/>')
    const image = screen.getByRole('img', { name: 'drawing.svg' })
    expect(image.getAttribute('src')).toBe('blob:test/1')
    expect(created[0]!.type).toBe('image/svg+xml')
    expect(container.querySelector('iframe, object, embed, svg')).toBeNull()
    unmount()
    expect(revoked).toEqual(['blob:test/1'])
  })

  it('shows HTML as its source text, never as markup', async () => {
    const html = '<h1>Title</h1><script>window.ran = 1</script>'
    const { container } = show('page.html', html, 'text/html')
    const region = screen.getByRole('region', { name: 'Preview of page.html' })
    await waitFor(() => expect(region.textContent).toContain('<h1>Title</h1>'))
    expect(container.querySelector('h1, script, iframe')).toBeNull()
  })

  it('renders markdown as notes do', async () => {
    const { container } = show('README.md', '# Hello\n\n<b>raw</b>')
    await screen.findByRole('heading', { name: 'Hello' })
    expect(container.querySelector('b')).toBeNull()
  })

  it('frames a PDF only when its bytes carry a PDF header', async () => {
    show('doc.pdf', '%PDF-1.4\n')
    await waitFor(() => expect(screen.getByTitle('doc.pdf').tagName).toBe('IFRAME'))
    cleanup()
    const { container } = show('fake.pdf', '<html><script>1</script></html>')
    await screen.findByText(/not a PDF/)
    expect(container.querySelector('iframe')).toBeNull()
  })
})
