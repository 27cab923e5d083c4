/**
 * What upload sockets may make the server hold, measured on the built server in a process of its
 * own: 40 sockets, each from its own address, send the header of a 32 MiB binary frame and 31 MiB
 * of its payload, either with no `init` at all or after an `init` for a 17-byte upload. Each is
 * refused from the frame's header, the server's resident set grows by well under 400 MB, and a
 * real upload completes over the WebSocket meanwhile (docs/api.md, Memory of upload sockets).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import {
  ApiClient,
  downloadFile,
  inspectFile,
  parseLink,
  sendFile,
  unlockFile,
} from '@fileshare/protocol'
import type { SpawnedServer } from '@fileshare/testing'
import { afterEach, expect, it } from 'vitest'

import { startBuiltServer } from '../bench/lib.js'
import { drain, randomSource, singleFile, wsFactory } from './client-support.js'
import { socketInitHeaders } from './harness.js'
import { residentMb } from './process-memory.js'
import { frameHeader, RawSocket, textFrame } from './raw-socket.js'

const MiB = 1024 * 1024
const SOCKETS = 40
const FRAME = 32 * MiB
const SENT = 31 * MiB
/** The bound on the server's growth under the attack (the old server grew by about 1.2 GB). */
const GROWTH_LIMIT_MB = 400
/** Sent in pieces, so the server reads them as they come rather than after the last. */
const PIECE = Buffer.alloc(MiB)

let server: SpawnedServer | undefined
let dataDir: string | undefined
const attackers: RawSocket[] = []

afterEach(async () => {
  for (const socket of attackers.splice(0)) socket.destroy()
  await server?.stop()
  server = undefined
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

/** Sends, over the WebSocket, an upload of `size` bytes, then downloads and compares it. */
async function roundTrip(api: ApiClient, size: number): Promise<void> {
  const { bytes, source } = randomSource(size)
  const sent = await sendFile(api, source, {
    expireSec: 86_400,
    maxDownloads: 1,
    metadata: singleFile('real.bin', size),
    fileCount: 1,
  })
  expect(sent.transport).toBe('ws')
  const parsed = parseLink(sent.link).link
  if (parsed.kind !== 'file') throw new Error('not a file link')
  const unlocked = await unlockFile(api, parsed, await inspectFile(api, parsed))
  expect((await drain((await downloadFile(api, unlocked)).stream)).equals(bytes)).toBe(true)
}

/**
 * One attacking socket from `ip`: optionally an `init` for 17 bytes, then the header of a 32 MiB
 * frame and 31 MiB of it, written until the server closes the connection or all is written.
 */
async function attack(url: string, ip: string, init: boolean): Promise<RawSocket> {
  const socket = await RawSocket.open(`${url.replace(/^http/, 'ws')}/api/upload/ws`, {
    'X-Forwarded-For': ip,
  })
  attackers.push(socket)
  if (init) {
    await socket.write(textFrame(JSON.stringify({ type: 'init', headers: socketInitHeaders(17) })))
    await socket.until(
      () => socket.frames.texts.length > 0 || socket.frames.closeCode !== undefined,
    )
    expect(JSON.parse(socket.frames.texts[0]!)).toMatchObject({ type: 'ready' })
  }
  await socket.write(frameHeader(0x2, FRAME))
  for (let sent = 0; sent < SENT && socket.frames.closeCode === undefined; sent += PIECE.length) {
    await socket.write(PIECE)
  }
  return socket
}

// Security: sockets holding half-received frames cannot exhaust the server's memory.
it.each([
  ['with no init', false],
  ['after an init for 17 bytes', true],
])(
  'keeps its growth under 400 MB while 40 sockets send 31 MiB of a 32 MiB frame %s',
  { timeout: 180_000 },
  async (_variant, init) => {
    dataDir = await mkdtemp(join(tmpdir(), 'fileshare-socket-memory-'))
    // Every attacker comes from an address of its own, so no per-address limit hides the rest.
    server = await startBuiltServer(dataDir, { TRUST_PROXY: '1', FILE_MAX_SIZE: '1GB' })
    const { url } = server
    const pid = server.child.pid!
    const api = new ApiClient({ baseUrl: url, webSocket: wsFactory() })
    await roundTrip(api, 2 * MiB)
    const before = await residentMb(pid)

    const attacks = Array.from({ length: SOCKETS }, (_, i) => attack(url, `10.0.0.${i + 1}`, init))
    // A real upload goes through while the attack is under way.
    await roundTrip(api, 24 * MiB)
    const sockets = await Promise.all(attacks)
    const after = await residentMb(pid)
    const growth = after.peak - before.now
    console.log(
      `server RSS ${before.now.toFixed(0)} MB before, peak ${after.peak.toFixed(0)} MB after`,
    )
    expect(growth).toBeLessThan(GROWTH_LIMIT_MB)
    // Each was refused from the frame's header: an error frame, then the close.
    const expected = init
      ? { code: 1008, message: 'Body size does not match declared content length' }
      : { code: 1002, message: 'Protocol violation' }
    for (const socket of sockets) {
      await socket.closed
      expect(socket.frames.closeCode).toBe(expected.code)
      expect(JSON.parse(socket.frames.texts.at(-1)!)).toMatchObject({
        type: 'error',
        message: expected.message,
      })
    }
  },
)
