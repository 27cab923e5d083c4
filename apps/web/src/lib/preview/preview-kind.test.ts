import { describe, expect, it } from 'vitest'

import { looksLikePdf, PREVIEW_LIMITS, previewPlanOf, uploadPreviewPlan } from './preview-kind'

const file = (name: string, type = '', size = 1000) => ({ name, type, size })

describe('previewPlanOf', () => {
  it('shows images by extension or type, with a type from the fixed list', () => {
    expect(previewPlanOf(file('a.PNG'))).toEqual({ kind: 'image', type: 'image/png' })
    expect(previewPlanOf(file('photo.jpeg'))).toEqual({ kind: 'image', type: 'image/jpeg' })
    expect(previewPlanOf(file('x.gif'))?.type).toBe('image/gif')
    expect(previewPlanOf(file('x.webp'))?.type).toBe('image/webp')
    expect(previewPlanOf(file('x.avif'))?.type).toBe('image/avif')
    expect(previewPlanOf(file('noext', 'image/webp'))).toEqual({
      kind: 'image',
      type: 'image/webp',
    })
  })

  it('shows SVG only as an image', () => {
    expect(previewPlanOf(file('drawing.svg', 'text/html'))).toEqual({
      kind: 'image',
      type: 'image/svg+xml',
    })
  })

  it('never gives a Blob an HTML type: HTML is code, shown as text', () => {
    expect(previewPlanOf(file('page.html', 'text/html'))).toEqual({
      kind: 'code',
      type: 'text/plain;charset=utf-8',
      language: 'xml',
    })
    expect(previewPlanOf(file('page', 'text/html'))).toEqual({
      kind: 'text',
      type: 'text/plain;charset=utf-8',
    })
    expect(previewPlanOf(file('x.xhtml', 'application/xhtml+xml'))?.type).toBe(
      'text/plain;charset=utf-8',
    )
  })

  it('knows PDF, markdown, code and plain text', () => {
    expect(previewPlanOf(file('doc.pdf'))).toEqual({ kind: 'pdf', type: 'application/pdf' })
    expect(previewPlanOf(file('scan', 'application/pdf'))?.kind).toBe('pdf')
    expect(previewPlanOf(file('README.md'))?.kind).toBe('markdown')
    expect(previewPlanOf(file('main.rs'))).toMatchObject({ kind: 'code', language: 'rust' })
    expect(previewPlanOf(file('src/Dockerfile'))).toMatchObject({ language: 'dockerfile' })
    expect(previewPlanOf(file('notes.txt'))?.kind).toBe('text')
    expect(previewPlanOf(file('data', 'text/csv'))?.kind).toBe('text')
  })

  it('leaves media and archives to their own previews', () => {
    expect(previewPlanOf(file('song.mp3'))?.kind).toBe('media')
    expect(previewPlanOf(file('clip', 'video/mp4'))?.kind).toBe('media')
    expect(previewPlanOf(file('bundle.zip'))?.kind).toBe('archive')
  })

  it('offers nothing for unknown kinds', () => {
    expect(previewPlanOf(file('setup.exe', 'application/octet-stream'))).toBeNull()
    expect(previewPlanOf(file('.hidden'))).toBeNull()
  })

  it('shows nothing above a kind’s limit, and large markdown or code as plain text', () => {
    expect(previewPlanOf(file('a.png', '', PREVIEW_LIMITS.image))?.kind).toBe('image')
    expect(previewPlanOf(file('a.png', '', PREVIEW_LIMITS.image + 1))).toBeNull()
    expect(previewPlanOf(file('a.pdf', '', PREVIEW_LIMITS.pdf + 1))).toBeNull()
    expect(previewPlanOf(file('a.md', '', PREVIEW_LIMITS.markdown + 1))?.kind).toBe('text')
    expect(previewPlanOf(file('a.py', '', PREVIEW_LIMITS.code + 1))?.kind).toBe('text')
    expect(previewPlanOf(file('a.py', '', PREVIEW_LIMITS.text + 1))).toBeNull()
    expect(previewPlanOf(file('a.txt', '', PREVIEW_LIMITS.text + 1))).toBeNull()
  })
})

describe('uploadPreviewPlan', () => {
  it('plans a single file by itself and an archive as one', () => {
    expect(uploadPreviewPlan({ archive: false, files: [file('a.png')] }, 1)?.kind).toBe('image')
    expect(
      uploadPreviewPlan({ archive: true, files: [file('a.png'), file('b.png')] }, 2)?.kind,
    ).toBe('archive')
    // A folder holding one file is still an archive.
    expect(uploadPreviewPlan({ archive: true, files: [file('d/a.png')] }, 2)?.kind).toBe('archive')
    expect(uploadPreviewPlan(null, 1)).toBeNull()
  })
})

describe('looksLikePdf', () => {
  const bytes = (text: string) => new TextEncoder().encode(text)
  it('finds the header within the first kilobyte only', () => {
    expect(looksLikePdf(bytes('%PDF-1.7\n'))).toBe(true)
    expect(looksLikePdf(bytes(' '.repeat(100) + '%PDF-1.4'))).toBe(true)
    expect(looksLikePdf(bytes(' '.repeat(1100) + '%PDF-1.4'))).toBe(false)
    expect(looksLikePdf(bytes('<html><script>alert(1)</script>'))).toBe(false)
  })
})
