/** Downloads over node:http, cut into whole records: against a real local HTTP server. */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer, type Server, type ServerResponse } from 'node:http'
import { createServer as createTlsServer, globalAgent } from 'node:https'
import {
  createServer as createTcpServer,
  type AddressInfo,
  type Server as TcpServer,
} from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

import { afterEach, describe, expect, it } from 'vitest'

import { isHandedOn, RECORD_BUFFER_BYTES } from './record-buffers.js'
import { fetchRecords, isDownloadRequest } from './record-fetch.js'

let server: Server | undefined

afterEach(async () => {
  server?.closeAllConnections()
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined))
  server = undefined
})

/** A server that answers every request with `handler`; resolves with its base URL. */
async function serve(handler: (response: ServerResponse, path: string) => void): Promise<string> {
  server = createServer((request, response) => handler(response, request.url ?? ''))
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`
}

/** Writes `body` in pieces of uneven sizes, as a socket would deliver it. */
function sendInPieces(response: ServerResponse, body: Buffer, declared = body.length): void {
  response.writeHead(200, {
    'Content-Type': 'application/octet-stream',
    'Content-Length': String(declared),
    'X-File-Count': '1',
  })
  let at = 0
  const next = () => {
    while (at < body.length) {
      const piece = body.subarray(at, at + 10_000 + (at % 70_001))
      at += piece.length
      if (!response.write(piece)) return void response.once('drain', next)
    }
    if (declared === body.length) response.end()
    else response.socket?.destroy()
  }
  next()
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = []
  for await (const chunk of stream) chunks.push(chunk)
  return chunks
}

describe('record fetch', () => {
  it('serves only counted downloads: GET of /api/download/:id and /api/inbox/:id/file/:uid', () => {
    const base = 'http://127.0.0.1:1'
    expect(isDownloadRequest(`${base}/api/download/abc`)).toBe(true)
    expect(isDownloadRequest(`${base}/api/inbox/abc/file/def`, { method: 'GET' })).toBe(true)
    expect(isDownloadRequest(`${base}/api/download/abc`, { method: 'POST' })).toBe(false)
    expect(isDownloadRequest(`${base}/api/info/abc`)).toBe(false)
    expect(isDownloadRequest(`${base}/api/download/abc/x`)).toBe(false)
    expect(isDownloadRequest(new Request(`${base}/api/download/abc`))).toBe(false)
    expect(isDownloadRequest(`ftp://127.0.0.1/api/download/abc`)).toBe(false)
  })

  it('delivers the body as whole records, the last one shorter, with status and headers', async () => {
    const body = randomBytes(3 * RECORD_BUFFER_BYTES + 12_345)
    let seenAuth: string | undefined
    server = createServer((request, response) => {
      seenAuth = request.headers['x-auth-token'] as string | undefined
      sendInPieces(response, body)
    })
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/download/x`
    const response = await fetchRecords(url, { headers: { 'X-Auth-Token': 'secret' } })
    expect(seenAuth).toBe('secret')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-length')).toBe(String(body.length))
    expect(response.headers.get('x-file-count')).toBe('1')
    const chunks = await readAll(response.body!)
    expect(chunks.map((c) => c.length)).toEqual([
      RECORD_BUFFER_BYTES,
      RECORD_BUFFER_BYTES,
      RECORD_BUFFER_BYTES,
      12_345,
    ])
    expect(Buffer.concat(chunks).equals(body)).toBe(true)
    // Each record is handed on whole, so the cipher may open it in place and reuse its buffer.
    expect(chunks.every(isHandedOn)).toBe(true)
  })

  it('reads an error answer as text, like fetch', async () => {
    const base = await serve((response) => {
      response.writeHead(404, { 'Content-Type': 'application/json' })
      response.end('{"error":"Not found"}')
    })
    const response = await fetchRecords(`${base}/api/download/x`)
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'Not found' })
  })

  // Security: a body cut short is an error, never a quietly shorter download.
  it('fails the body when the connection breaks off before its end', async () => {
    const body = randomBytes(RECORD_BUFFER_BYTES + 5000)
    const base = await serve((response) => sendInPieces(response, body, body.length + 100))
    const response = await fetchRecords(`${base}/api/download/x`)
    await expect(readAll(response.body!)).rejects.toThrow(
      'The connection closed before the body ended',
    )
  })

  it('rejects with the reason when aborted before the answer, and fails the body after', async () => {
    const base = await serve((response, path) => {
      if (path.endsWith('/slow')) return // never answers
      sendInPieces(response, randomBytes(RECORD_BUFFER_BYTES * 2), RECORD_BUFFER_BYTES * 4)
    })
    const early = new AbortController()
    const pending = fetchRecords(`${base}/api/download/slow`, { signal: early.signal })
    const reason = new Error('stop now')
    early.abort(reason)
    await expect(pending).rejects.toBe(reason)

    const late = new AbortController()
    const response = await fetchRecords(`${base}/api/download/x`, { signal: late.signal })
    const reader = response.body!.getReader()
    await reader.read()
    late.abort(new Error('stop later'))
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return 'ended'
      })(),
    ).rejects.toThrow('stop later')
  })

  /** A TCP server that writes `answer` to every connection and closes it. */
  async function answerRaw(answer: string): Promise<{ base: string; tcp: TcpServer }> {
    const tcp = createTcpServer((socket) => {
      socket.once('data', () => socket.end(answer))
    })
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve))
    return { base: `http://127.0.0.1:${(tcp.address() as AddressInfo).port}`, tcp }
  }

  // Security: what a hostile or broken server sends is refused with an error, never a crash.
  it.each([
    ['SSH-2.0-OpenSSH\r\n\r\n', /not HTTP/],
    ['HTTP/1.1 200 OK\r\nContent-Length: 12x\r\n\r\nbody', /bad Content-Length/],
    ['HTTP/1.1 200 OK\r\nBad Name: x\r\nContent-Length: 4\r\n\r\nbody', /malformed header/],
    ['HTTP/1.1 200 OK\r\nContent-Length: 4\r\n', /without an answer/],
  ])('refuses the answer %j', async (answer, error) => {
    const { base, tcp } = await answerRaw(answer)
    try {
      await expect(fetchRecords(`${base}/api/download/x`)).rejects.toThrow(error)
    } finally {
      await new Promise((resolve) => tcp.close(resolve))
    }
  })

  it('takes Content-Length bytes and no more, and the whole rest without one', async () => {
    for (const [answer, expected] of [
      ['HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nbodyEXTRA', 'body'],
      ['HTTP/1.0 200 OK\r\n\r\nall of it', 'all of it'],
    ] as const) {
      const { base, tcp } = await answerRaw(answer)
      try {
        const response = await fetchRecords(`${base}/api/download/x`)
        expect(Buffer.concat(await readAll(response.body!)).toString()).toBe(expected)
      } finally {
        await new Promise((resolve) => tcp.close(resolve))
      }
    }
  })

  it('answers a redirect as it is, following nothing (redirects.ts decides)', async () => {
    const seen: string[] = []
    const base = await serve((response, path) => {
      seen.push(path)
      response.writeHead(302, { Location: 'http://127.0.0.1:1/api/download/x' })
      response.end()
    })
    const response = await fetchRecords(`${base}/api/download/moved`)
    expect(response.status).toBe(302)
    expect(response.headers.get('location')).toBe('http://127.0.0.1:1/api/download/x')
    expect(seen).toEqual(['/api/download/moved'])
  })

  it('refuses an unreachable server', async () => {
    const base = await serve(() => undefined)
    const port = new URL(base).port
    await new Promise((resolve) => server!.close(resolve))
    server = undefined
    await expect(fetchRecords(`http://127.0.0.1:${port}/api/download/x`)).rejects.toThrow()
  })

  it('downloads over HTTPS through node:https, and refuses a certificate that does not verify', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fileshare-tls-'))
    try {
      await promisify(execFile)('openssl', [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ])
      const [key, cert] = await Promise.all([
        readFile(join(dir, 'key.pem')),
        readFile(join(dir, 'cert.pem')),
      ])
      const body = randomBytes(RECORD_BUFFER_BYTES + 777)
      let redirectTo: string | undefined
      const tls = createTlsServer({ key, cert }, (_request, response) => {
        if (redirectTo === undefined) return sendInPieces(response, body)
        response.writeHead(307, { Location: redirectTo })
        response.end()
      })
      server = tls
      await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve))
      const url = `https://127.0.0.1:${(tls.address() as AddressInfo).port}/api/download/x`
      // Security: an unknown certificate is refused, as fetch would.
      await expect(fetchRecords(url)).rejects.toThrow(/self[- ]signed/)
      const previous = globalAgent.options.ca
      globalAgent.options.ca = cert
      try {
        const response = await fetchRecords(url)
        const chunks = await readAll(response.body!)
        expect(chunks.map((c) => c.length)).toEqual([RECORD_BUFFER_BYTES, 777])
        expect(Buffer.concat(chunks).equals(body)).toBe(true)
        expect(chunks.every(isHandedOn)).toBe(true)
        // A redirect answered over HTTPS is answered as it is, as over plain HTTP.
        redirectTo = 'http://127.0.0.1:1/api/download/x'
        const moved = await fetchRecords(url)
        expect(moved.status).toBe(307)
        expect(moved.headers.get('location')).toBe(redirectTo)
      } finally {
        globalAgent.options.ca = previous
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
