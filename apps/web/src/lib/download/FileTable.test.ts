// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/svelte'
import { afterEach, describe, expect, it } from 'vitest'

import FileTable from './FileTable.svelte'

afterEach(() => cleanup())

describe('FileTable', () => {
  it('lists and counts the files of a folder sent by the command line, not its folder entries', () => {
    const metadata = {
      archive: true,
      files: [
        { name: 'photos/', type: '', size: 0 },
        { name: 'photos/trip/', type: '', size: 0 },
        { name: 'photos/trip/beach.jpg', type: 'image/jpeg', size: 2048 },
        { name: 'photos/empty.txt', type: 'text/plain', size: 0 },
        { name: 'contract.pdf', type: 'application/pdf', size: 1024 },
      ],
    }
    render(FileTable, { metadata })
    const names = screen.getAllByRole('listitem').map((item) => item.firstElementChild?.textContent)
    expect(names).toEqual(['photos/trip/beach.jpg', 'photos/empty.txt', 'contract.pdf'])
    expect(screen.getByText(/^3 files/)).toBeTruthy()
  })
})
