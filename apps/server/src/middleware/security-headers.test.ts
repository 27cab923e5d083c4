import { describe, expect, it } from 'vitest'

import { contentSecurityPolicy } from '@fileshare/protocol'
import { securityHeaderValues } from './security-headers.js'

describe('securityHeaderValues', () => {
  it('uses the named origins and script hashes in the header', () => {
    const options = {
      connectOrigins: ['https://s3.example'],
      scriptHashes: ['sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='],
    }
    expect(securityHeaderValues(options)).toMatchObject({
      'Content-Security-Policy': contentSecurityPolicy(options),
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
