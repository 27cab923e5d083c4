/**
 * ABUSE_EMAIL: a real SMTP server receives one notice per stored abuse report, naming its number
 * and target but neither its reason nor its key.
 */
import { randomBytes } from 'node:crypto'

import { waitForNotice } from '@fileshare/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { noteBody, startTestServer, type TestServer } from './harness.js'
import { startMailReceiver, type MailReceiver } from './mail-receiver.js'
import { call } from './requests.suite.js'

describe('abuse report mail', { timeout: 30_000 }, () => {
  let mail: MailReceiver
  let server: TestServer

  beforeAll(async () => {
    mail = await startMailReceiver()
    server = await startTestServer({
      env: { SMTP_URL: mail.url, ABUSE_EMAIL: 'abuse@example.test' },
    })
  })
  afterAll(async () => {
    await server?.close()
    await mail?.close()
  })

  it('mails ABUSE_EMAIL once per report, without the reason or the key', async () => {
    const created = await call(server, 'POST', '/note', { body: noteBody() })
    const id = created.body.id as string
    const key = randomBytes(34).toString('base64url')
    const reason = 'Phishing page pretending to be a bank'
    expect(await call(server, 'POST', `/report/${id}`, { body: { reason, key } })).toMatchObject({
      status: 201,
    })
    await waitForNotice(() => mail.mails.length > 0)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(mail.mails).toHaveLength(1)
    const [notice] = mail.mails
    const [stored] = await server.service.services.reports.list()
    expect(notice!.to).toEqual(['abuse@example.test'])
    expect(notice!.raw).toContain(`abuse report #${stored!.id}`)
    expect(notice!.raw).toContain(id)
    // Privacy: the mail names the report; what the reporter wrote and the key stay in the database.
    expect(notice!.raw).not.toContain(key)
    expect(notice!.raw).not.toContain('Phishing')
  })
})
