// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/svelte'
import { afterEach, describe, expect, it } from 'vitest'

import ErrorPanel from './ErrorPanel.svelte'

afterEach(() => cleanup())

describe('ErrorPanel', () => {
  it('names a key that does not fit with the page’s own sentence', () => {
    render(ErrorPanel, { kind: 'wrongKey', message: 'The link’s key does not open this file.' })
    expect(screen.getByRole('heading', { name: 'The link’s key does not fit' })).toBeTruthy()
    expect(screen.getByText('The link’s key does not open this file.')).toBeTruthy()
  })

  it('gives expired, used-up and removed links their own sentence and a way to send something', () => {
    render(ErrorPanel, { kind: 'gone', message: 'This link has expired.' })
    expect(screen.getByText('This link has expired.')).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Send something new' }).getAttribute('href')).toBe('/')
    cleanup()
    render(ErrorPanel, { kind: 'notFound' })
    expect(screen.getByText(/may have been deleted/)).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Send something new' })).toBeTruthy()
  })
})
