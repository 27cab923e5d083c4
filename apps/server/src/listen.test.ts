import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { listen, type RunningServer } from './listen.js'

const EXTRA = { 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'no-referrer' }

const app = new Hono()
app.get('/plain', (c) => c.text('ok'))
app.get('/own', (c) => c.text('ok', 200, { 'x-frame-options': 'SAMEORIGIN' }))
app.get('/raw', () => new Response('ok', { headers: { 'Referrer-Policy': 'same-origin' } }))
app.get('/crash', () => {
  throw new Error('boom')
})

let running: RunningServer

beforeAll(async () => {
  running = await listen(app, { port: 0, host: '127.0.0.1', responseHeaders: EXTRA })
})
afterAll(() => running.close())

describe('listen', () => {
  it('puts the response headers on answers, errors and 404s', async () => {
    for (const [path, status] of [
      ['/plain', 200],
      ['/crash', 500],
      ['/missing', 404],
    ] as const) {
      const res = await fetch(`${running.url}${path}`)
      expect(res.status, path).toBe(status)
      expect(res.headers.get('x-frame-options'), path).toBe('DENY')
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer')
      await res.arrayBuffer()
    }
  })

  it("keeps an answer's own value of one of them, sent once", async () => {
    const own = await fetch(`${running.url}/own`)
    expect(own.headers.get('x-frame-options')).toBe('SAMEORIGIN')
    expect(own.headers.get('referrer-policy')).toBe('no-referrer')
    const raw = await fetch(`${running.url}/raw`)
    expect(raw.headers.get('referrer-policy')).toBe('same-origin')
    expect(raw.headers.get('x-frame-options')).toBe('DENY')
  })
})
