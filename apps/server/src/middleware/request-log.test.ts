import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'

import { requestLog } from './request-log.js'

function appWithLog() {
  const lines: string[] = []
  const app = new Hono()
  app.use('*', requestLog({ info: (line) => lines.push(line) }))
  app.get('/api/note/:id', (c) => c.json({ ok: true }))
  app.post('/api/note/:id/view', () => {
    throw new Error('boom')
  })
  app.onError((_err, c) => c.json({ error: 'Internal server error' }, 500))
  return { app, lines }
}

describe('requestLog', () => {
  it('logs method, route pattern, status and duration, never the path or query', async () => {
    const { app, lines } = appWithLog()
    await app.request('/api/note/0f3c2f4e-9a61-4c1b-8a5e-1d2c3b4a5f60?authToken=secret')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^GET \/api\/note\/:id 200 \d+ms$/)
  })

  it('logs the status the error handler answered with', async () => {
    const { app, lines } = appWithLog()
    const res = await app.request('/api/note/abc/view', { method: 'POST' })
    expect(res.status).toBe(500)
    expect(lines[0]).toMatch(/^POST \/api\/note\/:id\/view 500 \d+ms$/)
  })

  it('logs an unmatched path as the catch-all pattern', async () => {
    const { app, lines } = appWithLog()
    await app.request('/api/secret-path/123')
    expect(lines[0]).toMatch(/^GET \/\* 404 \d+ms$/)
  })

  it('logs a 500 when an error escapes every handler, and lets it through', async () => {
    const lines: string[] = []
    const app = new Hono()
    app.use('*', requestLog({ info: (line) => lines.push(line) }))
    app.use('*', () => Promise.reject(new Error('escapes')))
    app.onError((err) => {
      throw err
    })
    await expect(app.request('/x')).rejects.toThrow('escapes')
    expect(lines[0]).toMatch(/^GET \/\* 500 \d+ms$/)
  })
})
