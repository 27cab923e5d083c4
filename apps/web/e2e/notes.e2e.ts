/**
 * Notes through the pages: each kind written in one browser and read in another, the view
 * counting (asked before a view is used, gone after the last), and the password flow.
 */
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'

import { browserAvailable } from './browser.js'
import { useSuite } from './suite.js'

type Kind = 'Text' | 'Markdown' | 'Code' | 'Passwords' | 'SSH key'

describe.runIf(browserAvailable)('notes in the browser', () => {
  const suite = useSuite()

  /** Opens /note with `kind` chosen; `fill` writes the note; answers the note link. */
  async function createNote(
    kind: Kind,
    fill: (page: Page) => Promise<void>,
    options: { views?: string; password?: string } = {},
  ): Promise<string> {
    const page = await suite.open('/note')
    await page.getByRole('radio', { name: kind, exact: true }).check()
    await fill(page)
    if (options.views)
      await page.getByRole('combobox', { name: 'View limit' }).selectOption(options.views)
    if (options.password) {
      await page.getByLabel('Link password (optional)').fill(options.password)
    }
    await page.getByRole('button', { name: 'Create note' }).click()
    // Creating takes a while with a password (Argon2id); the poll below has only a second.
    await page.getByRole('heading', { name: 'Your note is ready to share' }).waitFor()
    // Keyboard users land on the result, not back at the start of the page.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.textContent))
      .toBe('Your note is ready to share')
    return page.getByRole('textbox', { name: 'Note link' }).inputValue()
  }

  /** Opens the link in a fresh browser and uses one view; answers the page showing the note. */
  async function revealNote(link: string, reveal: string | RegExp = /^Reveal/): Promise<Page> {
    const page = await suite.open(link)
    await page.getByRole('heading', { name: 'Note', level: 1 }).waitFor()
    await page.getByRole('button', { name: reveal }).click()
    await page.getByRole('status').first().waitFor()
    return page
  }

  it('shows a text note, asks before using a view and is gone after the last', async () => {
    const text = 'The door code is 4711.\nBring the blue folder.'
    const link = await createNote(
      'Text',
      (page) => page.getByRole('textbox', { name: 'Note' }).fill(text),
      {
        views: '2',
      },
    )
    expect(link).toMatch(new RegExp(`^${suite.url}/n/[0-9a-f-]{36}#.+`))

    // Opening the link shows what is left and uses nothing until asked.
    const peek = await suite.open(link)
    await peek.getByText('2 views left').waitFor()
    await peek.getByRole('button', { name: 'Reveal (uses 1 of 2 views)' }).waitFor()
    expect(await peek.getByText('The door code is 4711.').count()).toBe(0)

    const first = await revealNote(link, 'Reveal (uses 1 of 2 views)')
    await first.getByText('The door code is 4711.').waitFor()
    await first.getByText('Bring the blue folder.').waitFor()
    await first.getByRole('status').filter({ hasText: '1 view left' }).waitFor()

    const last = await revealNote(link, 'Reveal (uses the last view)')
    await last.getByText('The door code is 4711.').waitFor()
    await last.getByRole('status').filter({ hasText: 'That was the last view' }).waitFor()

    const gone = await suite.open(link)
    await gone.getByRole('heading', { name: 'No longer available' }).waitFor()
  })

  it('asks before a link would drop a note being written, and not once it is created', async () => {
    const page = await suite.open('/note')
    const dialogs: string[] = []
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.type())
      void dialog.dismiss()
    })
    await page.getByRole('radio', { name: 'Text', exact: true }).check()
    await page.getByRole('textbox', { name: 'Note' }).fill('half a thought')
    await page.getByRole('link', { name: 'My uploads' }).click()
    await expect.poll(() => dialogs).toEqual(['confirm'])
    expect(page.url()).toBe(`${suite.url}/note`)
    expect(await page.getByRole('textbox', { name: 'Note' }).inputValue()).toBe('half a thought')
    await page.getByRole('button', { name: 'Create note' }).click()
    await page.getByRole('heading', { name: 'Your note is ready to share' }).waitFor()
    await page.getByRole('link', { name: 'My uploads' }).click()
    await page.getByRole('heading', { name: 'My uploads', level: 1 }).waitFor()
    expect(dialogs).toEqual(['confirm'])
  })

  it('deletes a note from its result page only once the deletion is confirmed', async () => {
    const page = await suite.open('/note')
    await page.getByRole('radio', { name: 'Text', exact: true }).check()
    await page.getByRole('textbox', { name: 'Note' }).fill('short-lived')
    await page.getByRole('button', { name: 'Create note' }).click()
    const link = await page.getByRole('textbox', { name: 'Note link' }).inputValue()
    await page.getByRole('button', { name: 'Delete note' }).click()
    const confirm = page.getByRole('group', { name: /^Delete this note now\?/ })
    await confirm.getByRole('button', { name: 'Cancel' }).click()
    expect(await confirm.count()).toBe(0)
    await page.getByRole('button', { name: 'Delete note' }).click()
    await confirm.getByRole('button', { name: 'Delete note' }).click()
    await page.getByRole('status').filter({ hasText: 'The note was deleted.' }).waitFor()
    const gone = await suite.open(link)
    await gone.getByRole('heading', { name: 'Not found' }).waitFor()
    // Deleted from its result page, the note leaves My uploads as a deletion there does.
    await page.goto(`${suite.url}/history`)
    await page.getByText('Nothing sent from this browser yet.').waitFor()
  })

  // Security: markdown from the sender must never run or inject HTML in the reader's page.
  it('renders markdown with raw HTML shown as text, never run', async () => {
    const markdown = [
      '# Trip plan',
      '',
      'Meet at **noon** and see [the map](https://example.org/map).',
      '',
      '<script>window.__injected = true</script>',
      '',
      '<img src="x" onerror="window.__injected = true">',
    ].join('\n')
    const link = await createNote('Markdown', async (page) => {
      await page.getByRole('textbox', { name: 'Markdown' }).fill(markdown)
      // The author's preview renders the same way, without running anything either.
      await page
        .getByRole('region', { name: 'Preview' })
        .getByRole('heading', { name: 'Trip plan' })
        .waitFor()
    })

    const page = await revealNote(link)
    // The note's "# Trip plan" sits below the page's own h1, which stays the only one.
    await page.getByRole('heading', { name: 'Trip plan', level: 2 }).waitFor()
    expect(await page.getByRole('heading', { level: 1 }).count()).toBe(1)
    await page.getByText('noon', { exact: true }).waitFor()
    expect(await page.getByRole('link', { name: 'the map' }).getAttribute('href')).toBe(
      'https://example.org/map',
    )
    await page.getByText('<script>window.__injected = true</script>').waitFor()
    await page.getByText('<img src="x" onerror="window.__injected = true">').waitFor()
    expect(
      await page.evaluate(() => (window as { __injected?: boolean }).__injected),
    ).toBeUndefined()
    expect(await page.locator('main script, main img').count()).toBe(0)
  })

  it('shows code with its text intact', async () => {
    const code = 'function add(a, b) {\n  return a + b // <sum>\n}'
    const link = await createNote('Code', (page) =>
      page.getByRole('textbox', { name: 'Code' }).fill(code),
    )
    const page = await revealNote(link)
    const shown = await page.getByRole('main').locator('pre').first().innerText()
    expect(shown.trimEnd()).toBe(code)
    await page.getByRole('button', { name: /^Copy/ }).first().waitFor()
  })

  it('carries a password list with a generated password, hidden until shown', async () => {
    let generated = ''
    const link = await createNote('Passwords', async (page) => {
      const entry = page.getByRole('group', { name: 'Entry 1' })
      await entry.getByRole('textbox', { name: 'Label' }).fill('Mail')
      await entry.getByRole('textbox', { name: 'Username' }).fill('ada@example.org')
      await entry.getByRole('button', { name: 'Generate password for entry 1' }).click()
      // Hidden as it is typed or generated, like the reader shows it.
      const password = entry.getByLabel('Password', { exact: true })
      expect(await password.getAttribute('type')).toBe('password')
      generated = await password.inputValue()
      await entry.getByRole('textbox', { name: 'Address' }).fill('https://mail.example.org')
    })
    expect(generated).toHaveLength(20)

    const page = await revealNote(link)
    await page.getByText('Mail', { exact: true }).waitFor()
    await page.getByText('ada@example.org').waitFor()
    expect(await page.getByText(generated).count()).toBe(0)
    await page.getByRole('button', { name: 'Show password of Mail' }).click()
    await page.getByText(generated).waitFor()
    await page.getByRole('button', { name: 'Copy password of Mail' }).waitFor()
  })

  it('carries an Ed25519 key pair generated in the browser', async () => {
    let keys = ''
    const link = await createNote('SSH key', async (page) => {
      await page.getByRole('textbox', { name: 'Key comment (optional)' }).fill('ada@laptop')
      await page.getByRole('button', { name: 'Generate Ed25519 key pair' }).click()
      const field = page.getByRole('textbox', { name: 'SSH keys' })
      await expect.poll(() => field.inputValue()).toContain('ssh-ed25519 ')
      keys = await field.inputValue()
    })
    expect(keys).toContain('-----BEGIN OPENSSH PRIVATE KEY-----')
    const publicKey = /ssh-ed25519 \S+ ada@laptop/.exec(keys)?.[0]
    expect(publicKey).toBeDefined()

    const page = await revealNote(link)
    await page.getByText(publicKey!).waitFor()
    await page
      .getByText(/SHA256:[A-Za-z0-9+/]{43}/)
      .first()
      .waitFor()
    await page.getByRole('button', { name: 'Copy public key 1' }).waitFor()
    await page.getByRole('button', { name: 'Copy private key 1' }).waitFor()
  })

  it('asks for the password without using a view, explains a wrong one, opens with the right one', async () => {
    const link = await createNote(
      'Text',
      (page) => page.getByRole('textbox', { name: 'Note' }).fill('behind a password'),
      { password: 'open sesame' },
    )
    const page = await suite.open(link)
    await page.getByRole('heading', { name: 'Password required' }).waitFor()
    const field = page.getByLabel('Password', { exact: true })
    await field.fill('open barley')
    await page.getByRole('button', { name: 'Unlock' }).click()
    await page.getByRole('alert').filter({ hasText: 'Wrong password' }).waitFor()
    await field.fill('open sesame')
    await page.getByRole('button', { name: 'Unlock' }).click()
    // The wrong and the right attempt used no view.
    await page.getByText('1 view left').waitFor()
    await page.getByRole('button', { name: 'Reveal (uses the last view)' }).click()
    await page.getByText('behind a password').waitFor()
  })
})
