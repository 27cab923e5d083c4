import { describe, expect, it } from 'vitest'

import { routeFamily } from './recorder.js'

describe('routeFamily', () => {
  it('names the family from the first segment and never passes a path through', () => {
    expect(routeFamily('/api/upload/init')).toBe('upload')
    expect(routeFamily('/api/meta/0b4c7bde-ffde-4d52-9d43-5c2b0e0c8f4a')).toBe('upload')
    expect(routeFamily('/api/download/0b4c7bde-ffde-4d52-9d43-5c2b0e0c8f4a')).toBe('download')
    expect(routeFamily('/api/note/x/view')).toBe('note')
    expect(routeFamily('/api/request/x/upload/y/chunk')).toBe('request')
    expect(routeFamily('/api/inbox/x')).toBe('inbox')
    expect(routeFamily('/api/health')).toBe('system')
    expect(routeFamily('/auth/callback')).toBe('auth')
    expect(routeFamily('/d/0b4c7bde-ffde-4d52-9d43-5c2b0e0c8f4a')).toBe('web')
    expect(routeFamily('/api/secret-token-value')).toBe('other')
    expect(routeFamily('/api/__proto__')).toBe('other')
    expect(routeFamily('/api/constructor/x')).toBe('other')
  })
})
