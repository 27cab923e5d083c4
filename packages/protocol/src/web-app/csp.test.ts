import { describe, expect, it } from 'vitest'

import { contentSecurityPolicy, scriptHashesOf } from './csp.js'

describe('contentSecurityPolicy', () => {
  it('allows only this origin and WebAssembly by default', () => {
    expect(contentSecurityPolicy()).toBe(
      "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; " +
        "img-src 'self' data: blob:; font-src 'self'; frame-src 'self' blob:; connect-src 'self'; " +
        "worker-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'none'; " +
        "form-action 'self'; frame-ancestors 'none'",
    )
  })

  it('adds named origins to connect-src only', () => {
    const policy = contentSecurityPolicy({ connectOrigins: ['https://s3.example'] })
    expect(policy).toContain("connect-src 'self' https://s3.example;")
    expect(policy.match(/s3\.example/g)).toHaveLength(1)
  })

  it('adds script hashes to script-src only, and reads them back', () => {
    const hash = 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='
    const policy = contentSecurityPolicy({ scriptHashes: [hash] })
    expect(policy).toContain(`script-src 'self' 'wasm-unsafe-eval' '${hash}';`)
    expect(policy.match(/sha256-/g)).toHaveLength(1)
    expect(scriptHashesOf(policy)).toEqual([hash])
    expect(scriptHashesOf(contentSecurityPolicy())).toEqual([])
  })
})
