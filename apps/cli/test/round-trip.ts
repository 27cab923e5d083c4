/** One file sent with the command and fetched back with it, compared byte for byte. */
import { mkdir, readdir } from 'node:fs/promises'
import { join } from 'node:path'

import { expect } from 'vitest'

import type { CliOptions, CliUser } from './cli-runner.js'
import { sha256File, writeRandomFile } from './files.js'

export interface RoundTrip {
  link: string
  /** The transport `send` reported: `websocket` or `http` (chunked). */
  transport: string
  /** What `send` and `get` printed on stderr. */
  stderr: string
}

/**
 * Writes `size` random bytes under `work/name`, sends them with `sendArgs` added, gets the link
 * into a fresh folder and expects the same bytes under the same name.
 */
export async function roundTrip(
  user: CliUser,
  work: string,
  o: { name: string; size: number; sendArgs?: readonly string[]; options?: CliOptions },
): Promise<RoundTrip> {
  const source = join(work, o.name)
  await writeRandomFile(source, o.size)
  const send = await user.ok(['send', source, '--json', ...(o.sendArgs ?? [])], o.options)
  const sent = JSON.parse(send.stdout) as Omit<RoundTrip, 'stderr'>
  const target = join(work, `${o.name}.got`)
  await mkdir(target)
  const get = await user.ok(['get', sent.link, '-o', target], o.options)
  expect(await readdir(target)).toEqual([o.name])
  expect(await sha256File(join(target, o.name))).toBe(await sha256File(source))
  return { link: sent.link, transport: sent.transport, stderr: send.stderr + get.stderr }
}

/**
 * One round trip over the WebSocket and one over chunked HTTP (`--no-websocket`), each expected
 * to have taken its transport; answers what both printed on stderr.
 */
export async function roundTripsBothWays(
  user: CliUser,
  work: string,
  o: { webSocketSize: number; chunkedSize: number; options: CliOptions },
): Promise<string> {
  const ws = await roundTrip(user, work, {
    name: 'ws.bin',
    size: o.webSocketSize,
    options: o.options,
  })
  expect(ws.transport).toBe('ws')
  const chunked = await roundTrip(user, work, {
    name: 'chunked.bin',
    size: o.chunkedSize,
    sendArgs: ['--no-websocket'],
    options: o.options,
  })
  expect(chunked.transport).toBe('chunks')
  return ws.stderr + chunked.stderr
}
