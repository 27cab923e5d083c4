import { describe, expect, it } from 'vitest'

import { healthUrl } from './health-url.js'

describe('healthUrl', () => {
  it('asks a server listening on every address over the IPv4 loopback, at its PORT', () => {
    expect(healthUrl({ host: '0.0.0.0', port: 8080 })).toBe('http://127.0.0.1:8080/api/health')
    expect(healthUrl({ host: '::', port: 3000 })).toBe('http://127.0.0.1:3000/api/health')
  })

  it('asks a server bound to one address at that address, bracketing IPv6', () => {
    expect(healthUrl({ host: '10.0.0.5', port: 3000 })).toBe('http://10.0.0.5:3000/api/health')
    expect(healthUrl({ host: '::1', port: 3000 })).toBe('http://[::1]:3000/api/health')
    expect(healthUrl({ host: 'localhost', port: 80 })).toBe('http://localhost:80/api/health')
  })
})
