import { HTTPException } from 'hono/http-exception'
import { describe, expect, it, vi } from 'vitest'

import { createApp } from './app.js'

describe('createApp error handler', () => {
  it('renders an HTTPException as its status and { error }', async () => {
    const app = createApp({ version: '1.0.0' })
    app.get('/api/teapot', () => {
      throw new HTTPException(418, { message: 'I am a teapot' })
    })
    const res = await app.request('/api/teapot')
    expect(res.status).toBe(418)
    expect(await res.json()).toEqual({ error: 'I am a teapot' })
  })

  it('turns any other error into a logged 500 that leaks nothing', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {})
    const app = createApp({ version: '1.0.0' })
    app.get('/api/boom', () => {
      throw new Error('secret detail')
    })
    const res = await app.request('/api/boom')
    expect(res.status).toBe(500)
    expect(await res.json()).toEqual({ error: 'Internal server error' })
    expect(log).toHaveBeenCalledOnce()
    log.mockRestore()
  })
})
