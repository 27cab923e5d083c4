// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte'
import { afterEach, describe, expect, it, vi } from 'vitest'

import type { PickedEntry } from '../upload/entries'
import DropZone from './DropZone.svelte'

function fileNode(fullPath: string, file: File) {
  return {
    isFile: true,
    isDirectory: false,
    name: file.name,
    fullPath,
    file: (ok: (f: File) => void) => ok(file),
  }
}

function dirNode(fullPath: string, children: unknown[]) {
  return {
    isFile: false,
    isDirectory: true,
    name: fullPath.split('/').pop(),
    fullPath,
    createReader: () => {
      let done = false
      return {
        readEntries: (ok: (e: unknown[]) => void) => {
          ok(done ? [] : children)
          done = true
        },
      }
    },
  }
}

afterEach(cleanup)

describe('DropZone', () => {
  it('offers both pickers as labelled buttons', () => {
    render(DropZone, { onpick: () => undefined })
    expect(screen.getByRole('button', { name: 'Choose files' })).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Choose folder' })).toBeTruthy()
  })

  it('hands a dropped folder over as entries with relative paths and empty folders', async () => {
    const onpick = vi.fn<(entries: PickedEntry[]) => void>()
    render(DropZone, { onpick })
    const photo = new File(['abc'], 'a.jpg', { type: 'image/jpeg', lastModified: 1000 })
    const tree = dirNode('/album', [fileNode('/album/a.jpg', photo), dirNode('/album/empty', [])])
    const dataTransfer = {
      types: ['Files'],
      files: [],
      items: [{ kind: 'file', webkitGetAsEntry: () => tree }],
    }
    await fireEvent.drop(screen.getByRole('group', { name: 'Drop files or folders here' }), {
      dataTransfer,
    })
    await vi.waitFor(() => expect(onpick).toHaveBeenCalledOnce())
    const picked = onpick.mock.calls[0]![0]
    expect(picked.map((e) => [e.path, e.size])).toEqual([
      ['album/', 0],
      ['album/a.jpg', 3],
      ['album/empty/', 0],
    ])
    expect(picked[1]!.file).toBe(photo)
  })

  it('takes the files of the file picker', async () => {
    const onpick = vi.fn<(entries: PickedEntry[]) => void>()
    const { container } = render(DropZone, { onpick })
    const input = container.querySelector('input[type=file]:not([webkitdirectory])')!
    const file = new File(['x'], 'x.txt')
    Object.defineProperty(input, 'files', { value: [file] })
    await fireEvent.change(input)
    expect(onpick.mock.calls[0]![0].map((e) => e.path)).toEqual(['x.txt'])
  })

  it('takes files pasted on the page, but leaves a paste into a text field or text alone', async () => {
    const onpick = vi.fn<(entries: PickedEntry[]) => void>()
    render(DropZone, { onpick })
    const shot = new File(['png'], 'image.png', { type: 'image/png' })
    const pasted = await fireEvent.paste(document.body, { clipboardData: { files: [shot] } })
    // Taken, so the browser does nothing else with it.
    expect(pasted).toBe(false)
    expect(onpick.mock.calls[0]![0].map((e) => [e.path, e.file])).toEqual([['image.png', shot]])

    const field = document.createElement('input')
    document.body.append(field)
    expect(await fireEvent.paste(field, { clipboardData: { files: [shot] } })).toBe(true)
    expect(await fireEvent.paste(document.body, { clipboardData: { files: [] } })).toBe(true)
    expect(onpick).toHaveBeenCalledOnce()
    field.remove()
  })

  it('takes no paste while disabled', async () => {
    const onpick = vi.fn<(entries: PickedEntry[]) => void>()
    render(DropZone, { onpick, disabled: true })
    await fireEvent.paste(document.body, { clipboardData: { files: [new File(['x'], 'x.txt')] } })
    expect(onpick).not.toHaveBeenCalled()
  })
})
