/**
 * Inbox notifications against the real server, a real SMTP server and a local webhook receiver:
 * one notification per finished upload on each channel and none for a cancelled one, signed
 * webhooks, retries with backoff, delivery after a restart and, on PostgreSQL, once across two
 * instances.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'

import {
  createFileRequest,
  openRequest,
  parseLink,
  REQUEST_SALT_BYTES,
  sendToRequest,
  toBase64Url,
  type CreatedFileRequest,
  type OpenedRequest,
  type RequestLink,
} from '@fileshare/protocol'
import {
  startWebhookReceiver,
  waitForNotice,
  webhookSignature,
  type WebhookCall,
  type WebhookReceiver,
} from '@fileshare/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { apiFor, randomSource, singleFile, wsFactory } from './client-support.js'
import { querySql, TEST_DIALECT } from './dialects.js'
import { startTestServer, type TestServer } from './harness.js'
import { startMailReceiver, type MailReceiver } from './mail-receiver.js'
import { requestBody } from './requests.suite.js'

const FILE_NAME = 'quarterly-secret-plan.pdf'

function notifyEnv(mail: MailReceiver): Record<string, string> {
  return {
    SMTP_URL: mail.url,
    NOTIFY_FROM: 'fileshare@example.test',
    NOTIFY_ALLOW_PRIVATE: 'true',
    NOTIFY_WEBHOOK_HTTP_HOSTS: '127.0.0.1',
  }
}

async function newRequest(
  server: TestServer,
  targets: { notifyEmail?: string; notifyWebhook?: string },
): Promise<{ created: CreatedFileRequest; opened: OpenedRequest }> {
  const created = await createFileRequest(apiFor(server), {
    message: 'Send me the plan',
    expireSec: 86_400,
    maxUploads: 10,
    maxSize: 1024 * 1024,
    downloads: 1,
    ...targets,
  })
  const link = parseLink(created.uploadLink).link as RequestLink
  return { created, opened: await openRequest(apiFor(server), link) }
}

async function upload(server: TestServer, opened: OpenedRequest, socket = false): Promise<void> {
  const file = randomSource(1000)
  await sendToRequest(
    apiFor(server, socket ? { webSocket: wsFactory() } : {}),
    opened,
    file.source,
    { metadata: singleFile(FILE_NAME, 1000), fileCount: 1 },
  )
}

/** Opens an upload session into the request and cancels it. */
async function cancelledUpload(server: TestServer, opened: OpenedRequest): Promise<void> {
  const init = await fetch(`${server.url}/api/request/${opened.id}/upload/init`, {
    method: 'POST',
    headers: {
      'x-upload-token': opened.uploadToken,
      'x-salt': toBase64Url(randomBytes(REQUEST_SALT_BYTES)),
      'x-content-length': '5000',
    },
  })
  expect(init.status).toBe(201)
  const { id } = (await init.json()) as { id: string }
  const cancel = await fetch(`${server.url}/api/request/${opened.id}/upload/${id}`, {
    method: 'DELETE',
  })
  expect(cancel.status).toBe(200)
}

/** Whether the call's signature is the HMAC-SHA256 of its body under `secret` (base64url). */
function signatureVerifies(call: WebhookCall, secret: string): boolean {
  const expected = Buffer.from(webhookSignature(secret, call.body))
  const given = Buffer.from(String(call.headers['x-fileshare-signature'] ?? ''))
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** The secret parts of a request's links: what no notification may carry. */
function linkSecrets(created: CreatedFileRequest): string[] {
  return [created.uploadLink, created.inboxLink].map((link) => new URL(link).hash.slice(1))
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 1500))

describe('inbox notifications', { timeout: 60_000 }, () => {
  let mail: MailReceiver
  let hook: WebhookReceiver
  let server: TestServer

  beforeAll(async () => {
    mail = await startMailReceiver()
    hook = await startWebhookReceiver()
    server = await startTestServer({ env: notifyEnv(mail) })
  })
  afterAll(async () => {
    await server?.close()
    await hook?.close()
    await mail?.close()
  })

  it('sends one mail and one signed webhook per finished upload, none for a cancelled one or a request that asked for none', async () => {
    mail.mails.length = 0
    hook.calls.length = 0
    const { created, opened } = await newRequest(server, {
      notifyEmail: 'owner@example.test',
      notifyWebhook: hook.url,
    })
    expect(created.notifyWebhookSecret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    await upload(server, opened)
    await upload(server, opened, true)
    await cancelledUpload(server, opened)
    const silent = await newRequest(server, {})
    expect(silent.created.notifyWebhookSecret).toBeUndefined()
    await upload(server, silent.opened)
    await waitForNotice(() => hook.delivered().length >= 2 && mail.mails.length >= 2)
    await settle()
    expect(hook.calls).toHaveLength(2)
    expect(mail.mails).toHaveLength(2)

    for (const call of hook.calls) {
      // Security: the receiver can tell the server's POST from a forged one by its HMAC.
      expect(signatureVerifies(call, created.notifyWebhookSecret!)).toBe(true)
      expect(call.headers['content-type']).toBe('application/json')
      const body = JSON.parse(call.body) as Record<string, unknown>
      expect(Object.keys(body).sort()).toEqual(['requestId', 'sizeClass', 'time'])
      expect(body).toMatchObject({ requestId: created.id, sizeClass: '<1 MB' })
      expect(Date.parse(body.time as string)).toBeGreaterThan(Date.now() - 60_000)
    }
    for (const received of mail.mails) {
      expect(received.to).toEqual(['owner@example.test'])
      expect(received.raw).toContain(created.id)
    }
    // Privacy: no notification carries the file name or any secret of the request's links.
    for (const text of [...hook.calls.map((call) => call.body), ...mail.mails.map((m) => m.raw)]) {
      expect(text).not.toContain(FILE_NAME)
      for (const secret of linkSecrets(created)) expect(text).not.toContain(secret)
      expect(text).not.toContain(created.inboxOwnerToken)
    }
  })

  it('refuses a malformed address and a webhook over plain http to a host not allowed', async () => {
    for (const [field, value] of [
      ['notifyEmail', 'not an address'],
      ['notifyEmail', `${'a'.repeat(250)}@example.test`],
      ['notifyWebhook', 'http://example.test/hook'],
      ['notifyWebhook', 'ftp://example.test/hook'],
    ] as const) {
      const refusal = newRequest(server, { [field]: value })
      await expect(refusal).rejects.toMatchObject({ status: 400 })
    }
  })

  // Security: an address the creator typed, unverified, gets a bounded number of mails.
  it('mails an address at most NOTIFY_EMAIL_MAX_PER_REQUEST times per request and takes NOTIFY_EMAIL_DAILY_LIMIT such requests a day', async () => {
    const bounded = await startTestServer({
      env: { ...notifyEnv(mail), NOTIFY_EMAIL_MAX_PER_REQUEST: '2', NOTIFY_EMAIL_DAILY_LIMIT: '2' },
    })
    try {
      mail.mails.length = 0
      hook.calls.length = 0
      const { opened } = await newRequest(bounded, {
        notifyEmail: 'victim@example.test',
        notifyWebhook: hook.url,
      })
      for (let i = 0; i < 3; i++) await upload(bounded, opened, i === 1)
      // The webhook hears of every upload; once the outbox is empty, every mail queued is sent.
      await waitForNotice(() => hook.delivered().length >= 3 && mail.mails.length >= 2)
      const queued = async () =>
        Number(
          (await querySql(bounded.service.db, 'SELECT count(*) AS n FROM notifications'))[0]!.n,
        )
      await expect.poll(queued, { timeout: 15_000 }).toBe(0)
      expect(hook.delivered()).toHaveLength(3)
      expect(mail.mails).toHaveLength(2)

      const create = (targets: Record<string, string>) =>
        fetch(`${bounded.url}/api/request`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(
            requestBody({ maxUploads: 10, maxSize: 1024 * 1024, downloads: 1, ...targets }),
          ),
        })
      expect((await create({ notifyEmail: 'victim@example.test' })).status).toBe(201)
      const refused = await create({ notifyEmail: 'someone@example.test' })
      expect(refused.status).toBe(429)
      expect(await refused.json()).toEqual({ error: 'Daily email notification limit reached' })
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
      // A request that asks for no mail is not counted against it.
      expect((await create({ notifyWebhook: hook.url })).status).toBe(201)
      expect((await create({})).status).toBe(201)
    } finally {
      await bounded.close()
    }
  })

  it('retries with a doubling delay while the receiver is down, then delivers once', async () => {
    hook.calls.length = 0
    hook.down = true
    const { opened } = await newRequest(server, { notifyWebhook: hook.url })
    await upload(server, opened)
    await waitForNotice(() => hook.calls.length >= 2)
    hook.down = false
    await waitForNotice(() => hook.delivered().length === 1)
    await settle()
    expect(hook.delivered()).toHaveLength(1)
    const [first, second, third] = hook.calls.map((call) => call.at)
    expect(second! - first!).toBeGreaterThanOrEqual(900)
    expect(third! - second!).toBeGreaterThanOrEqual(1900)
  })

  it('drops what is still queued for a request deleted meanwhile, on both channels, without a retry', async () => {
    hook.calls.length = 0
    mail.mails.length = 0
    hook.down = true
    mail.down = true
    mail.refused = 0
    const { created, opened } = await newRequest(server, {
      notifyEmail: 'owner@example.test',
      notifyWebhook: hook.url,
    })
    await upload(server, opened)
    // Both tried once and refused, so both wait for a retry.
    await waitForNotice(() => hook.calls.length >= 1 && mail.refused >= 1)
    const deleted = await fetch(`${server.url}/api/inbox/${created.id}`, {
      method: 'DELETE',
      headers: { 'X-Inbox-Owner-Token': created.inboxOwnerToken },
    })
    expect(deleted.status).toBe(200)
    hook.down = false
    mail.down = false
    const [calls, refused] = [hook.calls.length, mail.refused]
    const queued = async () =>
      Number((await querySql(server.service.db, 'SELECT count(*) AS n FROM notifications'))[0]!.n)
    await expect.poll(queued, { timeout: 15_000 }).toBe(0)
    await settle()
    expect(hook.calls).toHaveLength(calls)
    expect(mail.refused).toBe(refused)
    expect(mail.mails).toEqual([])
  })

  it('delivers what was queued before a restart', async () => {
    hook.calls.length = 0
    hook.down = true
    const { opened } = await newRequest(server, { notifyWebhook: hook.url })
    await upload(server, opened)
    await waitForNotice(() => hook.calls.length >= 1)
    await server.close({ keepData: true })
    hook.down = false
    const before = hook.calls.length
    server = await startTestServer({ env: notifyEnv(mail), dataDir: server.dataDir })
    await waitForNotice(() => hook.delivered().length === 1)
    await settle()
    expect(hook.calls.length).toBe(before + 1)
  })

  it.skipIf(TEST_DIALECT !== 'postgres')(
    'delivers each notification once with two instances on one database',
    async () => {
      hook.calls.length = 0
      hook.down = true
      const databaseUrl = server.service.config.databaseUrl!
      const second = await startTestServer({
        env: { ...notifyEnv(mail), DATABASE_URL: databaseUrl },
      })
      try {
        const { created, opened } = await newRequest(server, { notifyWebhook: hook.url })
        for (let i = 0; i < 6; i++) await upload(i % 2 === 0 ? server : second, opened)
        await waitForNotice(() => hook.calls.length >= 6)
        hook.down = false
        await waitForNotice(() => hook.delivered().length >= 6)
        await settle()
        expect(hook.delivered()).toHaveLength(6)
        for (const call of hook.delivered()) {
          expect(signatureVerifies(call, created.notifyWebhookSecret!)).toBe(true)
        }
      } finally {
        await second.close()
      }
    },
  )
})
