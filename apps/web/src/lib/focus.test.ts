// @vitest-environment jsdom
import { describe, expect, it } from 'vitest'

import { focusOnMount } from './focus'

describe('focusOnMount', () => {
  it('focuses the element that appears, without adding it to the tab order', async () => {
    const button = document.createElement('button')
    document.body.append(button)
    button.focus()
    const heading = document.createElement('h2')
    document.body.append(heading)
    focusOnMount(heading)
    await Promise.resolve()
    expect(document.activeElement).toBe(heading)
    expect(heading.getAttribute('tabindex')).toBe('-1')
  })
})
