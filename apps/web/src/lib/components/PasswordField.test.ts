// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte'
import { afterEach, describe, expect, it } from 'vitest'

import PasswordField from './PasswordField.svelte'

afterEach(() => cleanup())

describe('PasswordField', () => {
  it('shows the password with an icon button named for screen readers', async () => {
    render(PasswordField, { label: 'Password', value: 'hunter2' })
    const toggle = screen.getByRole('button', { name: 'Show password' })
    // The only text is the hidden name; on screen the button is an icon.
    const hidden = toggle.querySelector('.visually-hidden')
    expect(hidden?.textContent).toBe('Show password')
    expect(toggle.textContent?.trim()).toBe(hidden?.textContent)
    expect(toggle.querySelector('svg')).not.toBeNull()

    const input = screen.getByLabelText('Password') as HTMLInputElement
    expect(input.type).toBe('password')
    await fireEvent.click(toggle)
    expect(input.type).toBe('text')
    expect(toggle.getAttribute('aria-pressed')).toBe('true')
  })
})
