import { describe, expect, it } from 'vitest'

import { contentSecurityPolicy, securityHeaderValues } from './security-headers.js'

describe('contentSecurityPolicy', () => {
  it('allows only this origin, WebAssembly and blob: workers by default', () => {
    expect(contentSecurityPolicy()).toBe(
      "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; " +
        "img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; " +
        "worker-src 'self' blob:; manifest-src 'self'; object-src 'none'; base-uri 'none'; " +
        "form-action 'self'; frame-ancestors 'none'",
    )
  })

  it('adds named origins to connect-src only', () => {
    const policy = contentSecurityPolicy(['https://s3.example'])
    expect(policy).toContain("connect-src 'self' https://s3.example;")
    expect(policy.match(/s3\.example/g)).toHaveLength(1)
  })
})

describe('securityHeaderValues', () => {
  it('uses the named origins in the header', () => {
    expect(securityHeaderValues({ connectOrigins: ['https://s3.example'] })).toMatchObject({
      'Content-Security-Policy': contentSecurityPolicy(['https://s3.example']),
    })
  })
})

describe('Strict-Transport-Security', () => {
  it('is sent for a service reached over HTTPS only', () => {
    expect(securityHeaderValues({ https: true })).toMatchObject({
      'Strict-Transport-Security': 'max-age=31536000',
    })
    expect(securityHeaderValues({ https: false })).not.toHaveProperty('Strict-Transport-Security')
    expect(securityHeaderValues()).not.toHaveProperty('Strict-Transport-Security')
  })
})
