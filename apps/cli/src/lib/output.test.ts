import { PassThrough } from 'node:stream'

import { describe, expect, it } from 'vitest'

import { createOutput } from './output.js'

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
