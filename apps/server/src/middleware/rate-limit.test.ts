/** The rate-limit middleware in front of a limit kept in a database that may be out of reach. */
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'

import type { RateLimit } from '../limits/rate-limiter.js'
import { rateLimit } from './rate-limit.js'

function appWith(hit: RateLimit['hit']): Hono {
  const limiter: RateLimit = { enabled: true, hit, prune: async () => 0 }
  const app = new Hono()
  app.use(
    '/api/*',
    rateLimit(limiter, () => '192.0.2.1'),
  )
  app.get('/api/health', (c) => c.json({ status: 'ok' }))
  app.onError((_error, c) => c.json({ error: 'Internal server error' }, 500))
  return app
}

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })

describe('rate limit kept in the database', () => {
  it('labels and counts a request when the database answers', async () => {
    const app = appWith(async () => ({
      allowed: true,
      limit: 5,
      remaining: 4,
      resetSec: 60,
      retryAfterSec: 0,
    }))
    const res = await app.request('/api/health')
    expect(res.status).toBe(200)
    expect(res.headers.get('X-RateLimit-Remaining')).toBe('4')
  })

  it('lets a request through unlabelled while the database is out of reach', async () => {
    const app = appWith(() => Promise.reject(refused()))
    const res = await app.request('/api/health')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'ok' })
    expect(res.headers.get('X-RateLimit-Limit')).toBeNull()
  })

  it('still fails on any other error of the limit', async () => {
    const app = appWith(() => Promise.reject(new Error('syntax error at or near "update"')))
    const res = await app.request('/api/health')
    expect(res.status).toBe(500)
  })
})
