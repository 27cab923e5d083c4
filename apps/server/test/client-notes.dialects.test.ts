/** The client core's notes against the real server: every content type, with and without a password. */
import {
  ApiError,
  createNote,
  deleteNote,
  inspectNote,
  NOTE_CONTENT_TYPES,
  parseLink,
  unlockNote,
  viewNote,
  type FileLink,
} from '@fileshare/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startTestServer, type TestServer } from './harness.js'
import { apiFor } from './client-support.js'

function noteLink(link: string): FileLink {
  const parsed = parseLink(link).link
  if (parsed.kind !== 'note') throw new Error(`not a note link: ${link}`)
  return parsed
}

const TEXTS = {
  text: 'Plain words, with ünïcødé and emoji 🎉.',
  markdown: '# Title\n\n- one\n- two\n',
  password: 'hunter2',
  code: 'const x = 1\nconsole.log(x)\n',
  sshkey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE0000000000000000000000000000000000000000 me@host',
} as const

// Argon2id takes up to a second per derivation on a busy two-core machine.
describe('notes through the client core', { timeout: 60_000 }, () => {
  let server: TestServer

  beforeAll(async () => {
    server = await startTestServer({ env: { PASSWORD_MAX_ATTEMPTS: '3' } })
  })
  afterAll(() => server.close())

  for (const password of [undefined, 'open sesame']) {
    it(`creates, inspects, unlocks and views every content type ${password ? 'with' : 'without'} a password`, async () => {
      const api = apiFor(server)
      for (const contentType of NOTE_CONTENT_TYPES) {
        const created = await createNote(api, {
          text: TEXTS[contentType],
          contentType,
          maxViews: 2,
          expireSec: 3600,
          ...(password ? { password } : {}),
        })
        expect(Date.parse(created.expiresAt)).toBeGreaterThan(Date.now())
        const link = noteLink(created.link)
        expect(link.hasPassword).toBe(password !== undefined)
        const info = await inspectNote(api, link)
        expect(info).toMatchObject({ id: created.id, contentType, viewCount: 0, maxViews: 2 })
        expect(info.hasPassword).toBe(password !== undefined)
        const unlocked = await unlockNote(api, link, info, password)
        // Neither inspecting nor unlocking consumed a view.
        expect((await inspectNote(api, link)).viewCount).toBe(0)
        const viewed = await viewNote(api, unlocked)
        expect(viewed).toEqual({ text: TEXTS[contentType], contentType, viewCount: 1, maxViews: 2 })
        await deleteNote(api, created.id, created.ownerToken)
        await expect(inspectNote(api, link)).rejects.toMatchObject({
          status: 404,
          message: 'Note not found',
        })
      }
    })
  }

  it('answers 410 once the views are used up', async () => {
    const api = apiFor(server)
    const created = await createNote(api, {
      text: 'once',
      contentType: 'text',
      maxViews: 1,
      expireSec: 300,
    })
    const link = noteLink(created.link)
    const unlocked = await unlockNote(api, link, await inspectNote(api, link))
    expect((await viewNote(api, unlocked)).text).toBe('once')
    const again = viewNote(api, unlocked)
    await expect(again).rejects.toBeInstanceOf(ApiError)
    await expect(again).rejects.toMatchObject({ status: 410 })
  })

  it('reports a wrong password as WRONG_PASSWORD without consuming a view, then locks out', async () => {
    // Security: a wrong password reveals nothing, costs no view, and guessing is cut off.
    const api = apiFor(server)
    const created = await createNote(api, {
      text: 'secret',
      contentType: 'password',
      maxViews: 1,
      expireSec: 300,
      password: 'right',
    })
    const link = noteLink(created.link)
    const info = await inspectNote(api, link)
    await expect(unlockNote(api, link, info)).rejects.toMatchObject({ code: 'WRONG_PASSWORD' })
    for (let i = 0; i < 3; i++) {
      await expect(unlockNote(api, link, info, 'wrong')).rejects.toMatchObject({
        code: 'WRONG_PASSWORD',
      })
    }
    expect((await inspectNote(api, link)).viewCount).toBe(0)
    const locked = (await unlockNote(api, link, info, 'right').catch((e: unknown) => e)) as ApiError
    expect(locked).toBeInstanceOf(ApiError)
    expect(locked.status).toBe(429)
    expect(locked.retryAfterSec).toBeGreaterThan(0)
  })

  it('refuses a note over the size limit with the server’s 413', async () => {
    const api = apiFor(server)
    const { noteMaxSize } = await api.config()
    await expect(
      createNote(api, {
        text: 'x'.repeat(noteMaxSize + 1000),
        contentType: 'text',
        maxViews: 1,
        expireSec: 300,
      }),
    ).rejects.toMatchObject({ status: 413 })
  })
})
