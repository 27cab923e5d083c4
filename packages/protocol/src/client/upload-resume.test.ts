/**
 * Resuming uploads against an in-memory server that loses connections on purpose: chunked and
 * WebSocket sessions continue from what the server made durable, byte-exact, and refusals,
 * aborts and exhausted budgets end as documented (docs/api.md, "Resuming an upload").
 */
import { describe, expect, it } from 'vitest'

import { CHECKPOINT, CHUNK, FakeServer, uploadDeclaration } from '../../test/fake-upload-server.js'
import { pseudoRandomBytes, sameBytes, streamOf } from '../../test/streams.js'
import { ApiClient } from './api.js'
import { resumeUpload, uploadCiphertext, type UploadCiphertextOptions } from './upload.js'
import type { UploadSession } from './upload-status.js'

function upload(
  data: Uint8Array,
  extra: Partial<UploadCiphertextOptions> = {},
): UploadCiphertextOptions {
  return {
    target: { kind: 'file', declaration: uploadDeclaration(data.length) },
    size: data.length,
    ciphertext: (offset) => streamOf(data.subarray(offset), [300]),
    ...extra,
  }
}

function clients(server: FakeServer, webSocket: boolean): ApiClient {
  return server.client(webSocket)
}

describe('a chunked upload', () => {
  it('resumes from nextIndex after the server goes away, byte-exact', async () => {
    const server = new FakeServer()
    const data = pseudoRandomBytes(7 * CHUNK + 123, 4)
    server.failChunks = new Set([2, 5])
    const resumes: { offset: number; attempt: number }[] = []
    const sessions: UploadSession[] = []
    const result = await uploadCiphertext(
      clients(server, false),
      upload(data, {
        resume: {
          retryForMs: 60_000,
          onResume: (event) => resumes.push(event),
          onSession: (session) => void sessions.push(session),
        },
      }),
    )
    expect(result.transport).toBe('chunks')
    expect(sameBytes(server.finished.get(result.id)!, data)).toBe(true)
    expect(sessions).toEqual([{ id: result.id, transport: 'chunks', chunkSize: CHUNK }])
    expect(resumes.map((r) => r.attempt)).toEqual([1, 2])
    expect(resumes[0]!.offset).toBe(2 * CHUNK)
    expect(server.log.filter((line) => line.endsWith('/status'))).toHaveLength(2)
  })

  it('resumes after a network outage longer than the retries of one chunk', async () => {
    const server = new FakeServer()
    const data = pseudoRandomBytes(4 * CHUNK, 5)
    let calls = 0
    const fetch = server.fetch
    const api = new ApiClient({
      baseUrl: 'http://fake.test',
      fetch: async (input, init) => {
        if (String(input).includes('chunk') && ++calls === 3) server.downUntil = Date.now() + 4500
        return fetch(input, init)
      },
    })
    const result = await uploadCiphertext(api, upload(data, { resume: { retryForMs: 60_000 } }))
    expect(sameBytes(server.finished.get(result.id)!, data)).toBe(true)
  }, 20_000)

  it('counts its time budget from the last byte that got through, not from the first loss', async () => {
    const server = new FakeServer()
    const data = pseudoRandomBytes(30 * CHUNK, 14)
    server.failChunks = new Set([2, 28])
    const fetch = server.fetch
    const api = new ApiClient({
      baseUrl: 'http://fake.test',
      fetch: async (input, init) => {
        // A slow link: the second loss comes well after the budget of the first has passed.
        if (String(input).includes('chunk')) await new Promise((r) => setTimeout(r, 100))
        return fetch(input, init)
      },
    })
    const result = await uploadCiphertext(api, upload(data, { resume: { retryForMs: 1000 } }))
    expect(sameBytes(server.finished.get(result.id)!, data)).toBe(true)
  })

  it('asks the server to keep the session only when it resumes', async () => {
    const data = pseudoRandomBytes(2 * CHUNK, 15)
    const asked = new FakeServer()
    await uploadCiphertext(clients(asked, false), upload(data, { resume: { retryForMs: 1000 } }))
    const plain = new FakeServer()
    await uploadCiphertext(clients(plain, false), upload(data))
    const inits = (server: FakeServer) => server.log.filter((line) => line.startsWith('init'))
    expect(inits(asked)).toEqual(['init X-Resumable true'])
    expect(inits(plain)).toEqual(['init X-Resumable absent'])
  })

  it('is cancelled on a refusal and on a lost connection when resuming is off', async () => {
    const server = new FakeServer()
    server.failChunks = new Set([1])
    const data = pseudoRandomBytes(3 * CHUNK, 6)
    await expect(uploadCiphertext(clients(server, false), upload(data))).rejects.toThrow(
      'Bad gateway',
    )
    expect(server.log).toContain(`DELETE /api/upload/00000000-0000-4000-8000-000000000001`)
    expect(server.sessions.size).toBe(0)
  })

  it('counts as done when the finalize answer was lost but the upload exists', async () => {
    const server = new FakeServer()
    server.loseFinalizeAnswer = true
    const data = pseudoRandomBytes(2 * CHUNK, 7)
    const result = await uploadCiphertext(
      clients(server, false),
      upload(data, { resume: { retryForMs: 60_000 } }),
    )
    expect(sameBytes(server.finished.get(result.id)!, data)).toBe(true)
    expect(server.log).toContain(`GET /api/exists/${result.id}`)
  })

  it('says clearly when the server no longer has the session', async () => {
    const server = new FakeServer()
    const data = pseudoRandomBytes(3 * CHUNK, 8)
    const id = server.create(data.length, 'chunks')
    server.forget = true
    const session: UploadSession = { id, transport: 'chunks', chunkSize: CHUNK }
    await expect(resumeUpload(clients(server, false), session, upload(data))).rejects.toThrow(
      /no longer has this unfinished upload/,
    )
    expect(server.log).toContain(`GET /api/exists/${id}`)
  })

  it('gives up after its time budget and leaves the session to resume later', async () => {
    const server = new FakeServer()
    const data = pseudoRandomBytes(3 * CHUNK, 9)
    const sessions: UploadSession[] = []
    const api = clients(server, false)
    const options = upload(data, {
      resume: {
        retryForMs: 1,
        onSession: (session) => {
          sessions.push(session)
          server.downUntil = Date.now() + 60_000
        },
      },
    })
    await expect(uploadCiphertext(api, options)).rejects.toThrow(/Could not reach the server/)
    expect(server.sessions.has(sessions[0]!.id)).toBe(true)
    // Later, in another run, with the server back: the same session completes.
    server.downUntil = 0
    const result = await resumeUpload(api, sessions[0]!, upload(data))
    expect(sameBytes(server.finished.get(result.id)!, data)).toBe(true)
  }, 30_000)
})

describe('a session saved by an earlier client', () => {
  it.each([
    ['http', 'chunks', false],
    ['websocket', 'ws', true],
  ] as const)(
    'continues one saved as %s under its transport named %s',
    async (saved, transport, webSocket) => {
      const server = new FakeServer()
      const data = pseudoRandomBytes(3 * CHUNK, 10)
      const id = server.create(data.length, transport)
      const session = { id, transport: saved, chunkSize: webSocket ? null : CHUNK }
      const result = await resumeUpload(
        clients(server, webSocket),
        session as unknown as UploadSession,
        upload(data),
      )
      expect(result).toEqual({ id, transport })
      expect(sameBytes(server.finished.get(id)!, data)).toBe(true)
    },
  )
})

describe('a WebSocket upload', () => {
  it('resumes over new sockets from the durable offset, byte-exact', async () => {
    const server = new FakeServer()
    const data = pseudoRandomBytes(10 * CHECKPOINT + 55, 10)
    server.dropAt = [2 * CHECKPOINT + 100, 5 * CHECKPOINT + 10, 9 * CHECKPOINT]
    const resumes: { offset: number; attempt: number }[] = []
    const events: string[] = []
    const result = await uploadCiphertext(
      clients(server, true),
      upload(data, {
        resume: {
          retryForMs: 60_000,
          onConnectionLost: () => events.push('lost'),
          onResume: (event) => {
            resumes.push(event)
            events.push(`resumed ${event.attempt}`)
          },
        },
      }),
    )
    expect(result.transport).toBe('ws')
    // Each loss is told at once, before the wait and the status request of its resume.
    expect(events).toEqual(['lost', 'resumed 1', 'lost', 'resumed 2', 'lost', 'resumed 3'])
    expect(sameBytes(server.finished.get(result.id)!, data)).toBe(true)
    expect(resumes).toEqual([
      { offset: 2 * CHECKPOINT, attempt: 1 },
      { offset: 5 * CHECKPOINT, attempt: 2 },
      { offset: 9 * CHECKPOINT, attempt: 3 },
    ])
    expect(server.log.filter((line) => line.startsWith('ws resume'))).toEqual([
      `ws resume ${2 * CHECKPOINT}`,
      `ws resume ${5 * CHECKPOINT}`,
      `ws resume ${9 * CHECKPOINT}`,
    ])
  })

  it('fails at the first drop when resuming is off, as before', async () => {
    const server = new FakeServer()
    server.dropAt = [CHECKPOINT]
    const data = pseudoRandomBytes(3 * CHECKPOINT, 11)
    await expect(uploadCiphertext(clients(server, true), upload(data))).rejects.toThrow(
      /connection closed \(1006\)/,
    )
  })

  it('asks the server to keep the session only when it resumes', async () => {
    const asked = new FakeServer()
    const data = pseudoRandomBytes(CHECKPOINT, 14)
    await uploadCiphertext(clients(asked, true), upload(data, { resume: { retryForMs: 1000 } }))
    const kept = new FakeServer()
    const keep = { retryForMs: 0, keepOnAbort: true }
    await uploadCiphertext(clients(kept, true), upload(data, { resume: keep }))
    const plain = new FakeServer()
    await uploadCiphertext(clients(plain, true), upload(data))
    const off = new FakeServer()
    await uploadCiphertext(clients(off, true), upload(data, { resume: { retryForMs: 0 } }))
    const inits = (server: FakeServer) => server.log.filter((line) => line.startsWith('init'))
    expect(inits(asked)).toEqual(['init resumable true'])
    expect(inits(kept)).toEqual(['init resumable true'])
    expect(inits(plain)).toEqual(['init resumable undefined'])
    expect(inits(off)).toEqual(['init resumable undefined'])
  })

  it('leaves the session resumable on an abort when asked to keep it', async () => {
    const server = new FakeServer()
    const data = pseudoRandomBytes(3 * CHECKPOINT, 12)
    const controller = new AbortController()
    let session: UploadSession | undefined
    const options = upload(data, {
      signal: controller.signal,
      resume: {
        retryForMs: 60_000,
        keepOnAbort: true,
        onSession: (named) => {
          session = named
          controller.abort(new Error('interrupted'))
        },
      },
    })
    await expect(uploadCiphertext(clients(server, true), options)).rejects.toThrow('interrupted')
    expect(server.log).toContain('ws close 4000')
    expect(server.sessions.has(session!.id)).toBe(true)
  })

  it('does not resume a refusal', async () => {
    const server = new FakeServer()
    server.dropAt = [CHECKPOINT]
    const data = pseudoRandomBytes(2 * CHECKPOINT, 13)
    const api = clients(server, true)
    const options = upload(data, {
      resume: { retryForMs: 60_000, onSession: () => void (server.forget = true) },
    })
    await expect(uploadCiphertext(api, options)).rejects.toThrow(/no longer has/)
  })
})
