/** The input of a new upload: opened from paths or standard input, checked to fit, then closed. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough, Readable } from 'node:stream'

import { encryptedSize } from '@fileshare/protocol'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { createOutput } from './output.js'
import { sendSources, withSendInput } from './send-input.js'

let dir: string
const output = createOutput(false, { stdout: new PassThrough(), stderr: new PassThrough() }, {})
const noStdin = Object.assign(Readable.from([]), { isTTY: true })

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fileshare-send-input-'))
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

function fitsIn(maxEncryptedBytes: number) {
  return { limits: { maxFiles: 1, maxEncryptedBytes }, taker: 'this request' }
}

describe('withSendInput', () => {
  it('hands a payload that fits to its user and answers what the user answers', async () => {
    const path = join(dir, 'report.txt')
    await writeFile(path, 'twelve bytes')
    const sources = sendSources([path], undefined, noStdin)
    const seen = await withSendInput(sources, fitsIn(encryptedSize(12)), output, (payload) =>
      Promise.resolve(`${payload.summary} ${payload.contentBytes}`),
    )
    expect(seen).toBe('report.txt 12')
  })

  it('refuses a payload over the limit of its taker without handing it on', async () => {
    const path = join(dir, 'big.bin')
    await writeFile(path, Buffer.alloc(100))
    const sources = sendSources([path], undefined, noStdin)
    let used = false
    const sent = withSendInput(sources, fitsIn(encryptedSize(100) - 1), output, () => {
      used = true
      return Promise.resolve()
    })
    await expect(sent).rejects.toThrow(/^100 B is more than this request takes \(/)
    expect(used).toBe(false)
  })

  it('reads standard input for - as one file named by --name', async () => {
    const stdin = Object.assign(Readable.from([Buffer.from('from a pipe\n')]), { isTTY: false })
    const sources = sendSources(['-'], 'app.log', stdin)
    const read = await withSendInput(sources, fitsIn(1024), output, async (payload) => ({
      name: payload.summary,
      text: await new Response(payload.source.stream()).text(),
    }))
    expect(read).toEqual({ name: 'app.log', text: 'from a pipe\n' })
  })
})
