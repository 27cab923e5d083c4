/**
 * A client still sending a body the server has refused before reading it gets the answer: the
 * server half-closes and reads on, instead of resetting the connection under the client's writes.
 */
import { connect } from 'node:net'

import { afterEach, expect, it } from 'vitest'

import { requestHead, startTestServer, uploadHeaders, type TestServer } from './harness.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

it('lets a client that goes on sending after a 413 still read the 413', async () => {
  server = await startTestServer({ env: { FILE_UPLOAD_QUOTA_BYTES: '1000' } })
  const head = requestHead('POST', '/api/upload', uploadHeaders(50_000_000, {}, 'Content-Length'))
  const socket = connect(Number(new URL(server.url).port), '127.0.0.1')
  await new Promise((resolve) => socket.once('connect', resolve))
  let text = ''
  let failure = ''
  socket.setEncoding('latin1')
  socket.on('data', (piece: string) => (text += piece))
  socket.on('error', (error: NodeJS.ErrnoException) => (failure = error.code ?? error.message))
  const closed = new Promise((resolve) => socket.once('close', resolve))
  // The client reads nothing while it sends, as a busy client would: the answer waits unread
  // while more of the body reaches a server that has already answered.
  socket.pause()
  socket.write(head)
  for (let i = 0; i < 20 && !socket.destroyed; i++) {
    socket.write(Buffer.alloc(16 * 1024, 0x61))
    await sleep(20)
  }
  socket.resume()
  socket.end()
  await closed
  expect(failure).toBe('')
  expect(text).toMatch(/^HTTP\/1\.1 413 /)
  expect(text).toContain('Upload exceeds the remaining quota')
})
