/**
 * No offline password oracle: for a password-protected upload, note and file request, every
 * answer the server gives before the auth token is proven is searched for the item's ciphertext
 * (what a guess could be checked against with Argon2id and a GCM tag, with no lockout).
 */
import { randomBytes } from 'node:crypto'

import { toBase64, toBase64Url } from '@fileshare/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { randomToken, startTestServer, uploadHeaders, type TestServer } from './harness.js'

interface Probe {
  label: string
  status: number
  text: string
}

/** Every spelling a client could decode the bytes from: base64 and base64url, padded or not. */
function spellings(bytes: Buffer): string[] {
  return [toBase64(bytes), toBase64Url(bytes), toBase64(bytes).replace(/=+$/, '')]
}

/** The probes whose answer holds any of the sealed byte strings, by label. */
function leaks(probes: Probe[], sealed: Buffer[]): string[] {
  return probes
    .filter((probe) => sealed.some((bytes) => spellings(bytes).some((s) => probe.text.includes(s))))
    .map((probe) => probe.label)
}

describe('no offline password oracle', () => {
  let server: TestServer

  beforeAll(async () => {
    // Enough attempts that the probes' wrong tokens never lock the right one out.
    server = await startTestServer({ env: { PASSWORD_MAX_ATTEMPTS: '50' } })
  })
  afterAll(() => server.close())

  async function probe(label: string, method: string, path: string, init: RequestInit = {}) {
    const res = await fetch(`${server.url}${path}`, { method, ...init })
    return { label, status: res.status, text: await res.text() }
  }

  const jsonBody = (body: unknown): RequestInit => ({
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })

  it('serves an upload’s metadata only after its auth token is proven', async () => {
    // Security: nothing sealed under a password-derived key is served to a link holder unproven.
    const headers = uploadHeaders(64, {
      'X-Has-Password': 'true',
      'X-Password-Salt': toBase64Url(randomBytes(16)),
      'X-Password-Algo': 'argon2id-v2',
      'X-Max-Downloads': '5',
    })
    const payload = randomBytes(64)
    const sent = await fetch(`${server.url}/api/upload`, {
      method: 'POST',
      headers: { ...headers, 'Content-Length': '64' },
      body: payload,
    })
    const { id } = (await sent.json()) as { id: string }
    const meta = randomBytes(1040)
    const saved = await fetch(`${server.url}/api/meta/${id}`, {
      method: 'POST',
      headers: { 'X-Owner-Token': headers['X-Owner-Token']!, 'Content-Type': 'application/json' },
      body: JSON.stringify({ encryptedMeta: toBase64(meta), nonce: toBase64(randomBytes(12)) }),
    })
    expect(saved.status).toBe(200)

    const wrong = { 'X-Auth-Token': randomToken() }
    const probes = [
      await probe('info', 'GET', `/api/info/${id}`),
      await probe('exists', 'GET', `/api/exists/${id}`),
      await probe('download without token', 'GET', `/api/download/${id}`),
      await probe('download, wrong token', 'GET', `/api/download/${id}`, { headers: wrong }),
      await probe('password without token', 'POST', `/api/password/${id}`),
      await probe('password, wrong token', 'POST', `/api/password/${id}`, { headers: wrong }),
    ]
    expect(probes.map((p) => p.status)).toEqual([200, 200, 401, 401, 401, 401])
    expect(leaks(probes, [meta, payload])).toEqual([])

    // The marker is findable: the proven token gets exactly these bytes.
    const right = { 'X-Auth-Token': headers['X-Auth-Token']! }
    const proven = await probe('password, right token', 'POST', `/api/password/${id}`, {
      headers: right,
    })
    expect(proven.status).toBe(200)
    expect(leaks([proven], [meta])).toEqual(['password, right token'])
  })

  it('serves a note’s content only after its auth token is proven', async () => {
    // Security: a protected note's public routes carry no ciphertext to test guesses against.
    const content = randomBytes(300)
    const authToken = randomToken()
    const created = await fetch(`${server.url}/api/note`, {
      method: 'POST',
      ...jsonBody({
        encryptedContent: toBase64(content),
        nonce: toBase64(randomBytes(12)),
        salt: toBase64Url(randomBytes(16)),
        ownerToken: randomToken(),
        authToken,
        contentType: 'text',
        maxViews: 5,
        expireSec: 3600,
        hasPassword: true,
        passwordSalt: toBase64Url(randomBytes(16)),
        passwordAlgo: 'argon2id-v2',
      }),
    })
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: string }

    const wrong = { authToken: randomToken() }
    const probes = [
      await probe('info', 'GET', `/api/note/${id}`),
      await probe('view without token', 'POST', `/api/note/${id}/view`, jsonBody({})),
      await probe('view, wrong token', 'POST', `/api/note/${id}/view`, jsonBody(wrong)),
      await probe('password, wrong token', 'POST', `/api/note/${id}/password`, jsonBody(wrong)),
      await probe(
        'password, right token',
        'POST',
        `/api/note/${id}/password`,
        jsonBody({ authToken }),
      ),
    ]
    expect(probes.map((p) => p.status)).toEqual([200, 401, 401, 401, 200])
    expect(leaks(probes, [content])).toEqual([])

    const viewed = await probe(
      'view, right token',
      'POST',
      `/api/note/${id}/view`,
      jsonBody({ authToken }),
    )
    expect(leaks([viewed], [content])).toEqual(['view, right token'])
  })

  it('serves a request’s vault only after its inbox token is proven', async () => {
    // Security: the vault of a protected inbox is sealed under a key from the password-protected
    // inbox secret; neither the senders' route nor a wrong inbox token gets it.
    const vault = randomBytes(146)
    const fields = {
      vault: toBase64Url(vault),
      vaultNonce: toBase64Url(randomBytes(12)),
      inboxAuthToken: toBase64Url(randomBytes(32)),
      inboxOwnerToken: toBase64Url(randomBytes(32)),
      uploadToken: toBase64Url(randomBytes(32)),
      brief: { ciphertext: toBase64Url(randomBytes(1040)), nonce: toBase64Url(randomBytes(12)) },
      expireSec: 86400,
      maxUploads: 5,
      maxSize: 1024 * 1024,
      downloads: 3,
      hasPassword: true,
    }
    const created = await fetch(`${server.url}/api/request`, {
      method: 'POST',
      ...jsonBody(fields),
    })
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: string }

    const wrong = { 'X-Inbox-Token': toBase64Url(randomBytes(32)) }
    const probes = [
      await probe('request, sender’s token', 'GET', `/api/request/${id}`, {
        headers: { 'X-Upload-Token': fields.uploadToken },
      }),
      await probe('request without token', 'GET', `/api/request/${id}`),
      await probe('inbox without token', 'GET', `/api/inbox/${id}`),
      await probe('inbox, wrong token', 'GET', `/api/inbox/${id}`, { headers: wrong }),
    ]
    expect(probes.map((p) => p.status)).toEqual([200, 404, 404, 404])
    expect(leaks(probes, [vault])).toEqual([])

    const proven = await probe('inbox, right token', 'GET', `/api/inbox/${id}`, {
      headers: { 'X-Inbox-Token': fields.inboxAuthToken },
    })
    expect(proven.status).toBe(200)
    expect(leaks([proven], [vault])).toEqual(['inbox, right token'])
  })
})
