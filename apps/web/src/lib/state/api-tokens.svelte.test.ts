// @vitest-environment jsdom
import { ApiError, type CreateApiTokenResponse } from '@fileshare/protocol'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { t } from '../i18n/t'
import { TokenSettings } from './api-tokens.svelte'

const api = vi.hoisted(() => ({ json: vi.fn() }))
vi.mock('../api', () => ({ pageApi: () => api }))

const CREATED: CreateApiTokenResponse = {
  id: '6f1c2a8e-8d1b-4a51-9a4e-0c5f5e1b7d20',
  name: 'nightly',
  scopes: ['files'],
  createdAt: '2026-03-01T12:00:00.000Z',
  expiresAt: '2026-03-31T12:00:00.000Z',
  lastUsedAt: null,
  token: `fst_${'A'.repeat(42)}E`,
}

beforeEach(() => {
  api.json.mockReset()
})

describe('TokenSettings', () => {
  it('asks for a name and a scope before calling the server', async () => {
    const settings = new TokenSettings(['files'])
    await settings.create()
    expect(settings.problem).toBe(t('tokens.form.nameMissing'))
    settings.name = 'nightly'
    settings.scopes = []
    await settings.create()
    expect(settings.problem).toBe(t('tokens.form.scopesMissing'))
    expect(api.json).not.toHaveBeenCalled()
  })

  it('shows a new token once, lists it without the token, and forgets it on revoke', async () => {
    const settings = new TokenSettings(['files', 'notes'])
    settings.name = '  nightly '
    settings.scopes = ['files']
    api.json.mockResolvedValueOnce(CREATED)
    await settings.create()
    expect(api.json).toHaveBeenCalledWith('POST', '/api/tokens', {
      json: { name: 'nightly', scopes: ['files'], expiresInDays: 30 },
    })
    expect(settings.created?.token).toBe(CREATED.token)
    expect(settings.name).toBe('')
    const { token: _token, ...listed } = CREATED
    expect(settings.tokens).toEqual([listed])

    api.json.mockResolvedValueOnce({ ok: true })
    await settings.revoke(CREATED.id)
    expect(api.json).toHaveBeenLastCalledWith('DELETE', `/api/tokens/${CREATED.id}`)
    expect(settings.tokens).toEqual([])
    expect(settings.created).toBeNull()
  })

  it('says to sign in when the session has ended', async () => {
    const settings = new TokenSettings(['files'])
    api.json.mockRejectedValueOnce(new ApiError(401, 'Login required'))
    await settings.load()
    expect(settings.loaded).toBe(true)
    expect(settings.loadProblem).toBe(t('error.loginRequired'))
  })
})
