// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte'
import { afterEach, describe, expect, it } from 'vitest'

import TextField from './TextField.svelte'

afterEach(() => cleanup())

describe('TextField', () => {
  it('labels its input and names the hint and outside descriptions for screen readers', () => {
    const outside = document.body.appendChild(document.createElement('p'))
    outside.id = 'size'
    render(TextField, {
      label: 'Message',
      value: '',
      rows: 5,
      hint: 'Shown to senders',
      describedby: 'size',
    })
    const area = screen.getByLabelText('Message')
    expect(area.tagName).toBe('TEXTAREA')
    const ids = area.getAttribute('aria-describedby')!.split(' ')
    expect(ids.map((id) => document.getElementById(id)?.textContent)).toEqual([
      'Shown to senders',
      outside.textContent,
    ])
    expect(area.hasAttribute('aria-invalid')).toBe(false)
    outside.remove()
  })

  it('marks itself invalid and takes text exactly as typed when asked', () => {
    render(TextField, { label: 'Key', value: '', invalid: true, verbatim: true, mono: true })
    const input = screen.getByLabelText('Key') as HTMLInputElement
    expect(input.tagName).toBe('INPUT')
    expect(input.getAttribute('aria-invalid')).toBe('true')
    expect(input.getAttribute('aria-describedby')).toBeNull()
    expect(input.getAttribute('spellcheck')).toBe('false')
    expect(input.getAttribute('autocomplete')).toBe('off')
    expect(input.getAttribute('autocapitalize')).toBe('off')
  })

  it('reads a number input as a number', async () => {
    let value: string | number = 20
    render(TextField, {
      props: {
        label: 'Length',
        type: 'number',
        min: 8,
        max: 128,
        get value() {
          return value
        },
        set value(next) {
          value = next
        },
      },
    })
    const input = screen.getByLabelText('Length') as HTMLInputElement
    expect(input.value).toBe('20')
    await fireEvent.input(input, { target: { value: '32' } })
    expect(value).toBe(32)
  })
})
