import { PassThrough } from 'node:stream'

import { describe, expect, it } from 'vitest'

import { createOutput, PROGRESS_LINE_MS } from './output.js'

const LINK = 'https://share.example.org/d/9ec7af88-27b8-4fba-a4be-27c65bdc631e#key'
const COLOUR = '\x1b[30;107m'

/** What `qr` writes to a stderr that is (or is not) a terminal, in the environment `env`. */
async function qrOutput(isTTY: boolean, env: NodeJS.ProcessEnv): Promise<string> {
  const stderr = Object.assign(new PassThrough(), { isTTY })
  const chunks: Buffer[] = []
  stderr.on('data', (chunk: Buffer) => chunks.push(chunk))
  await createOutput(false, { stdout: new PassThrough(), stderr }, env).qr(LINK)
  return Buffer.concat(chunks).toString()
}

describe('the QR code on stderr', () => {
  it('is black on white on a terminal', async () => {
    expect(await qrOutput(true, {})).toContain(COLOUR)
  })

  it("has no colours on a terminal when the command's environment sets NO_COLOR", async () => {
    const plain = await qrOutput(true, { NO_COLOR: '1' })
    expect(plain).not.toContain('\x1b[')
    expect(plain.trim().split('\n').length).toBeGreaterThan(10)
  })

  it('takes an empty NO_COLOR as unset, as no-color.org says', async () => {
    expect(await qrOutput(true, { NO_COLOR: '' })).toContain(COLOUR)
  })

  it('has no colours on a pipe', async () => {
    expect(await qrOutput(false, {})).not.toContain('\x1b[')
  })
})

/** The output's stderr as text, not a terminal, with a clock the test moves. */
function plainStderr(options: { quiet?: boolean } = {}) {
  const stderr = Object.assign(new PassThrough(), { isTTY: false })
  const chunks: Buffer[] = []
  stderr.on('data', (chunk: Buffer) => chunks.push(chunk))
  const clock = { ms: 0 }
  const output = createOutput(
    false,
    { stdout: new PassThrough(), stderr },
    {},
    {
      ...options,
      now: () => clock.ms,
    },
  )
  return { output, clock, text: () => Buffer.concat(chunks).toString() }
}

describe('progress where stderr is no terminal', () => {
  it('writes a plain line now and then, as curl and rsync do', () => {
    const { output, clock, text } = plainStderr()
    const progress = output.progress('Uploading', 100 * 1024 ** 2)
    clock.ms = 1000
    progress.update(1024 ** 2)
    expect(text()).toBe('')
    clock.ms = PROGRESS_LINE_MS
    progress.update(10 * 1024 ** 2)
    expect(text()).toBe('Uploading: 10 MiB of 100 MiB (10%), 1 MiB/s, 1m 30s left\n')
    clock.ms = PROGRESS_LINE_MS + 1000
    progress.update(11 * 1024 ** 2)
    expect(text().split('\n')).toHaveLength(2)
    clock.ms = 2 * PROGRESS_LINE_MS + 1000
    progress.update(20 * 1024 ** 2)
    expect(text().split('\n')).toHaveLength(3)
    progress.stop()
    clock.ms = 4 * PROGRESS_LINE_MS
    progress.update(30 * 1024 ** 2)
    expect(text().split('\n')).toHaveLength(3)
  })

  // A resume goes back to the last byte the server kept: the rate starts again from there.
  it('measures the rate afresh when a resume goes back, never below zero', () => {
    const { output, clock, text } = plainStderr()
    const progress = output.progress('Uploading', 100 * 1024 ** 2)
    clock.ms = 1000
    progress.update(30 * 1024 ** 2)
    clock.ms = PROGRESS_LINE_MS
    progress.update(22 * 1024 ** 2)
    clock.ms = 2 * PROGRESS_LINE_MS
    progress.update(32 * 1024 ** 2)
    expect(text().split('\n')).toEqual([
      'Uploading: 22 MiB of 100 MiB (22%), 0 B/s, – left',
      'Uploading: 32 MiB of 100 MiB (32%), 1 MiB/s, 1m 08s left',
      '',
    ])
  })

  it('writes no progress and no status lines with --quiet, but still warnings', () => {
    const { output, clock, text } = plainStderr({ quiet: true })
    const progress = output.progress('Downloading', 100)
    clock.ms = 2 * PROGRESS_LINE_MS
    progress.update(50)
    output.info('Saved into the current folder:')
    output.warn('1 upload could not be decrypted')
    expect(text()).toBe('1 upload could not be decrypted\n')
  })
})
