/**
 * Inbox notifications from the request page: the form says the server learns the address, a
 * webhook given there receives one signed notice when a sender's file arrives, and the page
 * shows the signing key once.
 */

import {
  startWebhookReceiver,
  waitForNotice,
  webhookSignature,
  type WebhookReceiver,
} from '@fileshare/testing'
import { afterAll, describe, expect, it } from 'vitest'

import { pickFiles } from './actions.js'
import { browserAvailable } from './browser.js'
import { writePseudoRandomFile } from './files.js'
import { useSuite } from './suite.js'
import { useTempDir } from './temp-dir.js'

describe.runIf(browserAvailable)('inbox notifications in the browser', () => {
  let hook: WebhookReceiver | undefined
  const dir = useTempDir()

  const suite = useSuite(async () => {
    hook = await startWebhookReceiver()
    return {
      env: {
        // Mail is offered once SMTP_URL is set; this test sends none.
        SMTP_URL: 'smtp://127.0.0.1:9',
        NOTIFY_ALLOW_PRIVATE: 'true',
        NOTIFY_WEBHOOK_HTTP_HOSTS: '127.0.0.1',
      },
    }
  })

  afterAll(async () => {
    await hook?.close()
  })

  it('sends a signed webhook when a file arrives, and says what the server learns', async () => {
    const page = await suite.open('/request')
    await page.getByRole('textbox', { name: 'Message to senders' }).fill('Logs, please.')
    const notify = page.getByRole('group', { name: 'Tell me when a file arrives (optional)' })
    await expect(notify.getByText('The server learns this address or URL').count()).resolves.toBe(1)
    await notify.getByRole('textbox', { name: 'Email address' }).waitFor()
    await notify.getByRole('textbox', { name: 'Webhook URL (https)' }).fill(hook!.url)
    await page.getByRole('button', { name: 'Create request' }).click()
    await page.getByRole('heading', { name: 'Your file request is ready' }).waitFor()
    const key = await page
      .getByRole('textbox', { name: 'Webhook signing key (shown only now)' })
      .inputValue()
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const uploadLink = await page.getByRole('textbox', { name: /^Upload link/ }).inputValue()

    const source = dir.join('server.log')
    await writePseudoRandomFile(source, 20_000)
    const sender = await suite.open(uploadLink)
    await pickFiles(sender, source)
    await sender.getByRole('button', { name: 'Send', exact: true }).click()
    await sender.getByRole('heading', { name: 'Sent', level: 1 }).waitFor({ timeout: 60_000 })

    await waitForNotice(() => hook!.calls.length > 0)
    expect(hook!.calls).toHaveLength(1)
    const [call] = hook!.calls
    expect(call!.headers['x-fileshare-signature']).toBe(webhookSignature(key, call!.body))
    expect(call!.body).not.toContain('server.log')
  })
})
