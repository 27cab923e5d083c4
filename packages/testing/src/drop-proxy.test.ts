/** The drop proxy forwards bytes both ways and cuts every connection at the counts it is given. */
import { createServer, connect, type Server, type Socket } from 'node:net'

import { afterEach, describe, expect, it } from 'vitest'

import { dropsEvery, medianDropRound, startDropProxy, type DropProxy } from './drop-proxy.js'

let echo: Server | undefined
let proxy: DropProxy | undefined
let received = 0

afterEach(async () => {
  await proxy?.close()
  if (echo) await new Promise((resolve) => echo!.close(resolve))
  echo = proxy = undefined
  received = 0
})

/** A target that counts what it receives and answers each chunk with its length. */
async function startTarget(): Promise<number> {
  echo = createServer((socket) => {
    socket.on('data', (chunk) => {
      received += chunk.length
      socket.write(`${chunk.length}\n`)
    })
    socket.on('error', () => undefined)
  })
  await new Promise<void>((resolve) => echo!.listen(0, '127.0.0.1', resolve))
  return (echo.address() as { port: number }).port
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket))
    socket.on('error', reject)
  })
}

/** Writes `bytes` in 1 KiB pieces until written or the connection closes; answers how many left. */
async function pump(socket: Socket, bytes: number): Promise<{ written: number; closed: boolean }> {
  let written = 0
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  let isClosed = false
  void closed.then(() => (isClosed = true))
  while (written < bytes && !isClosed) {
    const piece = Buffer.alloc(Math.min(1024, bytes - written), 7)
    await new Promise<void>((resolve) => socket.write(piece, () => resolve()))
    written += piece.length
    await new Promise((resolve) => setImmediate(resolve))
  }
  if (written >= bytes) socket.end()
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 200))])
  return { written, closed: isClosed }
}

describe('startDropProxy', () => {
  it('forwards both ways and cuts every open connection at each count', async () => {
    const targetPort = await startTarget()
    proxy = await startDropProxy({ targetPort, dropAt: dropsEvery(10_000, 2) })
    const answers: string[] = []
    const first = await open(proxy.port)
    const idle = await open(proxy.port)
    const idleClosed = new Promise<void>((resolve) => idle.once('close', () => resolve()))
    first.on('data', (data: Buffer) => answers.push(data.toString()))
    const one = await pump(first, 50_000)
    expect(one.closed).toBe(true)
    await idleClosed
    expect(proxy.drops).toBe(1)
    expect(received).toBe(10_000)
    expect(answers.length).toBeGreaterThan(0)
    // The next connection is cut at the second count, counted over both connections.
    const second = await open(proxy.port)
    expect((await pump(second, 50_000)).closed).toBe(true)
    expect(proxy.drops).toBe(2)
    expect(received).toBe(20_000)
    // No counts left: everything goes through.
    const third = await open(proxy.port)
    await pump(third, 30_000)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(received).toBe(50_000)
    expect(proxy.forwarded).toBe(50_000)
  })

  it('refuses connections while it is down after a drop', async () => {
    const targetPort = await startTarget()
    proxy = await startDropProxy({ targetPort, dropAt: [100], downMs: 500 })
    const first = await open(proxy.port)
    await pump(first, 1000)
    const refused = await open(proxy.port)
    const closed = await new Promise<boolean>((resolve) => {
      refused.once('close', () => resolve(true))
      setTimeout(() => resolve(false), 300)
    })
    expect(closed).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 500))
    const later = await open(proxy.port)
    await pump(later, 1000)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(received).toBe(1100)
  })
})

describe('medianDropRound', () => {
  it('picks the round of the median ratio, the lower middle one for an even count', () => {
    const round = (steadyMs: number, droppedMs: number) => ({ steadyMs, droppedMs })
    const rounds = [round(90, 100), round(50, 100), round(70, 100)]
    expect(medianDropRound(rounds)).toBe(rounds[2])
    expect(medianDropRound(rounds.slice(0, 2))).toBe(rounds[1])
    expect(medianDropRound([rounds[0]!])).toBe(rounds[0])
    expect(() => medianDropRound([])).toThrow()
  })
})
