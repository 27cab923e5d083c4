/**
 * The upload clients of the server benchmarks: a payload of `size` bytes (the server never
 * decrypts, so any bytes do) over the WebSocket or over chunked HTTP, as the apps send it, with
 * the least client work so that the figures measure the server.
 */
import { Agent } from 'node:http'

import { CHUNK_BUSY_DELAYS_MS } from '@fileshare/protocol'
import WebSocket from 'ws'

import { MiB, expectStatus, mbps, payload, send, token, type Answer } from './lib.js'

export interface UploadSettings {
  maxDownloads: string
  expireSec: string
}

export interface StoredUpload {
  id: string
  authToken: string
  ownerToken: string
  mbps: number
}

/** One frame of a record's size, at most this much queued in the socket, as the apps send. */
export const WS_FRAME_SIZE = MiB
const WS_HIGH_WATER = 8 * MiB

export interface WebSocketUploadOptions {
  size: number
  settings: UploadSettings
  /**
   * Mask frames with a zero key, as the command line does (docs/api.md, WebSocket frame masks),
   * instead of `ws`'s random one, which adds a masked copy of every frame on the client.
   */
  zeroMask?: boolean
}

interface ServerFrame {
  type: string
  id?: string
  message?: string
}

/** A WebSocket whose frames are queued, with a wait for a condition that fails once it closes. */
class UploadSocket {
  private readonly frames: ServerFrame[] = []
  private failure: Error | undefined
  private wake: (() => void) | undefined

  constructor(readonly ws: WebSocket) {
    ws.on('open', this.notify)
    ws.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
      const frame = isBinary ? undefined : (JSON.parse(data.toString()) as ServerFrame)
      if (frame?.type === 'error') this.failure ??= new Error(`error frame: ${frame.message}`)
      else if (frame) this.frames.push(frame)
      else this.failure ??= new Error('binary frame from the server')
      this.notify()
    })
    ws.on('close', (code, reason) => {
      this.failure ??= new Error(`socket closed with ${code} ${reason.toString()}`)
      this.notify()
    })
    ws.on('error', (error) => {
      this.failure ??= error
      this.notify()
    })
  }

  readonly notify = (): void => {
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }

  async until(condition: () => boolean): Promise<void> {
    while (!condition()) {
      if (this.failure) throw this.failure
      await new Promise<void>((resolve) => (this.wake = resolve))
    }
  }

  async frame(type: string): Promise<ServerFrame> {
    await this.until(() => this.frames.length > 0)
    const frame = this.frames.shift()!
    if (frame.type !== type) {
      throw new Error(`expected a ${type} frame, got ${JSON.stringify(frame)}`)
    }
    return frame
  }
}

export async function uploadOverWebSocket(
  port: number,
  options: WebSocketUploadOptions,
): Promise<StoredUpload & { deflate: boolean }> {
  const { size, settings } = options
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api/upload/ws`, {
    origin: `http://127.0.0.1:${port}`,
    ...(options.zeroMask ? { generateMask: (mask: Buffer) => void mask.fill(0) } : {}),
  })
  const socket = new UploadSocket(ws)
  const authToken = token()
  const ownerToken = token()
  try {
    await socket.until(() => ws.readyState === WebSocket.OPEN)
    const start = performance.now()
    const headers = {
      authToken,
      ownerToken,
      salt: token(),
      maxDownloads: settings.maxDownloads,
      expireSec: settings.expireSec,
      fileCount: '1',
      contentLength: String(size),
      hasPassword: 'false',
    }
    ws.send(JSON.stringify({ type: 'init', headers }))
    const { id } = await socket.frame('ready')
    for (let offset = 0, i = 0; offset < size; offset += WS_FRAME_SIZE, i++) {
      await socket.until(() => ws.bufferedAmount <= WS_HIGH_WATER)
      ws.send(payload(i, Math.min(WS_FRAME_SIZE, size - offset)), { binary: true }, socket.notify)
    }
    ws.send(JSON.stringify({ type: 'finalize' }))
    const done = await socket.frame('done')
    const ms = performance.now() - start
    if (done.id !== id || id === undefined) {
      throw new Error(`done frame for ${done.id}, expected ${id}`)
    }
    return {
      id,
      authToken,
      ownerToken,
      mbps: mbps(size, ms),
      deflate: ws.extensions.includes('permessage-deflate'),
    }
  } finally {
    ws.terminate()
  }
}

export interface ChunkedUploadOptions {
  size: number
  settings: UploadSettings
  /** Bytes per chunk, and chunks in flight: the server's FILE_UPLOAD_CHUNK_SIZE and _CONCURRENT_CHUNKS. */
  chunkSize: number
  inFlight: number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * One chunk, sent again after a 429 (a full buffer of early chunks on a loaded server) after its
 * `Retry-After` or the apps' growing delay; any other answer than 200 is final.
 */
async function sendChunk(port: number, agent: Agent, id: string, index: number, body: Buffer) {
  const path = `/api/upload/${id}/chunk?index=${index}`
  const headers = { 'content-type': 'application/octet-stream' }
  for (let busy = 0; ; busy++) {
    const answer: Answer = await send(port, agent, { method: 'POST', path, headers, body })
    const delay = CHUNK_BUSY_DELAYS_MS[busy]
    if (answer.status !== 429 || delay === undefined) {
      return expectStatus(`chunk ${index}`, answer, 200)
    }
    const retryAfterSec = Number(answer.headers['retry-after'])
    await sleep(Number.isFinite(retryAfterSec) ? Math.max(delay, retryAfterSec * 1000) : delay)
  }
}

/**
 * Chunked upload over node:http with a keep-alive agent: against fetch on this server it was as
 * fast or faster at about a quarter of the client CPU, which matters when client and server share
 * the cores. As the apps' client does, a chunk starts only within `inFlight` of the lowest
 * unanswered one, so that the server's buffer of early chunks is never exceeded.
 */
export async function uploadInChunks(
  port: number,
  options: ChunkedUploadOptions,
): Promise<StoredUpload> {
  const { size, settings, chunkSize, inFlight } = options
  const agent = new Agent({ keepAlive: true, maxSockets: inFlight })
  const authToken = token()
  const ownerToken = token()
  try {
    const start = performance.now()
    const init = await send(port, agent, {
      method: 'POST',
      path: '/api/upload/init',
      headers: {
        'X-Auth-Token': authToken,
        'X-Owner-Token': ownerToken,
        'X-Salt': token(),
        'X-Max-Downloads': settings.maxDownloads,
        'X-Expire-Sec': settings.expireSec,
        'X-File-Count': '1',
        'X-Has-Password': 'false',
        'X-Content-Length': String(size),
      },
    })
    expectStatus('upload init', init, 201)
    const { id } = JSON.parse(init.body.toString()) as { id: string }
    const count = Math.ceil(size / chunkSize)
    const answered = new Set<number>()
    let lowest = 0
    let next = 0
    let failure: unknown
    const waiting: Array<() => void> = []
    const worker = async () => {
      while (next < count && failure === undefined) {
        // Wait for room in the window past the lowest chunk still unanswered.
        if (next >= lowest + inFlight) {
          await new Promise<void>((resolve) => waiting.push(resolve))
          continue
        }
        const index = next++
        const body = payload(index, Math.min(chunkSize, size - index * chunkSize))
        try {
          await sendChunk(port, agent, id, index, body)
        } catch (error) {
          failure ??= error
        }
        answered.add(index)
        while (answered.delete(lowest)) lowest++
        for (const resume of waiting.splice(0)) resume()
      }
    }
    await Promise.all(Array.from({ length: inFlight }, worker))
    if (failure !== undefined) throw failure
    const finalize = await send(port, agent, {
      method: 'POST',
      path: `/api/upload/${id}/finalize`,
      headers: { 'X-Owner-Token': ownerToken },
    })
    expectStatus('finalize', finalize, 200)
    return { id, authToken, ownerToken, mbps: mbps(size, performance.now() - start) }
  } finally {
    agent.destroy()
  }
}
