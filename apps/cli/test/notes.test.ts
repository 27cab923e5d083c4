/** `fileshare note` end to end: every content type, views, passwords, info without a view. */
import { execFile } from 'node:child_process'
import { join } from 'node:path'

import { NOTE_CONTENT_TYPES } from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import { CLI, CLI_NODE } from './cli-runner.js'
import { serveUser } from './served-user.js'

const suite = serveUser()

interface Created {
  link: string
  id: string
  expiresAt: string
  maxViews: number
  contentType: string
}

const SAMPLES: Record<(typeof NOTE_CONTENT_TYPES)[number], string> = {
  text: 'Meet at the station at 9.\nBring the tickets.',
  markdown: '# Plan\n\n- **first** item\n- second item\n',
  password: 'c0rrect-h0rse-battery-staple',
  code: 'fn main() {\n    println!("héllo, wörld");\n}\n',
  sshkey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleKeyMaterialOnly user@host\n',
}

describe('note', () => {
  for (const type of NOTE_CONTENT_TYPES) {
    it(`round-trips a ${type} note exactly, from standard input`, async () => {
      const created = await suite.user.json<Created>(
        ['note', '-', '--type', type, '--views', '2'],
        {
          input: SAMPLES[type],
        },
      )
      expect(created.link).toMatch(new RegExp(`^${suite.server.url}/n/${created.id}#`))
      expect(created).toMatchObject({ contentType: type, maxViews: 2 })
      const viewed = await suite.user.ok(['note', 'get', created.link])
      expect(viewed.stdout).toBe(SAMPLES[type])
      expect(viewed.stderr).toContain('1 view left.')
    })
  }

  it('shows views left without using one, and refuses a view past the limit', async () => {
    const created = await suite.user.json<Created>([
      'note',
      'once only',
      '--views',
      '1',
      '--expire',
      '1h',
    ])
    const info = await suite.user.json<{
      viewsLeft: number
      maxViews: number
      contentType: string
    }>(['note', 'info', created.link])
    expect(info).toMatchObject({ viewsLeft: 1, maxViews: 1, contentType: 'text' })
    const again = await suite.user.json<{ viewsLeft: number }>(['note', 'info', created.link])
    expect(again.viewsLeft).toBe(1)

    const viewed = await suite.user.json<{ text: string; viewsLeft: number }>([
      'note',
      'get',
      created.link,
    ])
    expect(viewed).toMatchObject({ text: 'once only', viewsLeft: 0 })
    const gone = await suite.user.run(['note', 'get', created.link])
    expect(gone.code).toBe(2)
    expect(gone.stderr).toMatch(/fileshare: (View limit reached|Note has expired|Note not found)/)
  })

  it('protects a note with a password and refuses a wrong one without using a view', async () => {
    const created = await suite.user.json<Created & { hasPassword: boolean }>(
      ['note', 'behind a password', '--views', '2', '--password'],
      { env: { FILESHARE_PASSWORD: 's3cret' } },
    )
    expect(created.hasPassword).toBe(true)
    const wrong = await suite.user.run(['note', 'get', created.link, '--password=nope'])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('Wrong password')
    const info = await suite.user.json<{ viewsLeft: number; hasPassword: boolean }>([
      'note',
      'info',
      created.link,
    ])
    expect(info).toMatchObject({ viewsLeft: 2, hasPassword: true })
    const right = await suite.user.ok(['note', 'get', created.link, '--password=s3cret'])
    expect(right.stdout).toBe('behind a password')
  })

  it('says in --help that note get uses up a view', async () => {
    const help = await suite.user.ok(['note', 'get', '--help'])
    expect(help.stdout).toMatch(/uses up one of\s+its\s+views/)
    expect(help.stdout).toContain('Examples:')
  })

  it('refuses an empty note, a bad type and a view count the server does not allow', async () => {
    const empty = await suite.user.run(['note', '-'], { input: '' })
    expect(empty.code).toBe(1)
    expect(empty.stderr).toContain('The note is empty')
    const type = await suite.user.run(['note', 'x', '--type', 'poem'])
    expect(type.code).toBe(1)
    expect(type.stderr).toContain("argument 'poem' is invalid")
    const views = await suite.user.run(['note', 'x', '--views', '4'])
    expect(views.code).toBe(1)
    expect(views.stderr).toContain(
      '--views 4 is not allowed by this server; choose one of 1, 2, 3, 5, 10, 100',
    )
  })
})

/**
 * Runs the command with its standard output on a pseudo-terminal (util-linux `script`); with
 * `merged`, standard output and error go to one pipe (`2>&1`) instead.
 */
function runOnTerminal(args: readonly string[], merged = false): Promise<string> {
  const quoted = [CLI_NODE, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
  return new Promise((resolve, reject) => {
    execFile(
      'script',
      ['-qec', quoted.join(' ') + (merged ? ' 2>&1 | cat -v' : ''), '/dev/null'],
      {
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: suite.user.home,
          XDG_CONFIG_HOME: join(suite.user.home, '.config'),
        },
      },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    )
  })
}

describe('note get on a terminal', () => {
  // An OSC 52 clipboard write, a window title change and a bare carriage return.
  const HOSTILE = 'hello\u001b]52;c;ZXZpbA==\u0007 \u001b]0;owned\u0007\tend\rX\r\nnext\n'

  it('security: control characters of the sender reach a terminal escaped, unless --raw', async () => {
    const created = await suite.user.json<Created>(['note', '-', '--views', '3'], {
      input: HOSTILE,
    })
    const shown = await runOnTerminal(['note', 'get', created.link])
    expect(shown).toContain('hello\\x1b]52;c;ZXZpbA==\\x07 \\x1b]0;owned\\x07\tend\\x0dX')
    expect(shown).not.toContain('\u001b')
    const raw = await runOnTerminal(['note', 'get', created.link, '--raw'])
    expect(raw).toContain('\u001b]52;c;ZXZpbA==\u0007')
  })

  it('shows a password list as its entries, and keeps the view line apart on a shared pipe', async () => {
    const list = JSON.stringify({
      format: 'fileshare-passwords',
      version: 1,
      entries: [{ label: 'Mail', username: 'ana', password: 's3 cret', url: 'https://m.example' }],
    })
    const created = await suite.user.json<Created>(
      ['note', '-', '--type', 'password', '--views', '2'],
      { input: list },
    )
    const shown = await runOnTerminal(['note', 'get', created.link])
    expect(shown).toContain(
      'Mail\r\n  Username: ana\r\n  Password: s3 cret\r\n  URL:      https://m.example',
    )
    expect(shown).not.toContain('"format"')
    // Its output and errors to one pipe: the bytes stay exact, the view line starts a line.
    const merged = await runOnTerminal(['note', 'get', created.link], true)
    expect(merged).toContain(`${list}\r\nThat was the last view`)
  })

  it('keeps the bytes exact when standard output is not a terminal', async () => {
    const created = await suite.user.json<Created>(['note', '-'], { input: HOSTILE })
    const piped = await suite.user.ok(['note', 'get', created.link])
    expect(piped.stdout).toBe(HOSTILE)
  })
})
