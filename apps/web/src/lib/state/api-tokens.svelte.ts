/**
 * The API token settings (`/settings`): the signed-in user's tokens, the form of a new one, the
 * token just made (shown this once, never kept), and revoking. Every call goes with the session
 * cookie; the server never answers a token again after creating it.
 */
import {
  API_TOKEN_NAME_MAX,
  createApiToken,
  listApiTokens,
  revokeApiToken,
  type ApiTokenInfo,
  type ApiTokenScope,
  type CreateApiTokenResponse,
} from '@fileshare/protocol'

import { pageApi } from '../api'
import { errorMessage } from '../errors'
import { t, type MessageKey } from '../i18n/t'
import { config } from './config.svelte'

/** Lifetimes offered, in days; the server takes 1 to 365. */
export const TOKEN_EXPIRY_DAYS: readonly number[] = [7, 30, 90, 365]
export const DEFAULT_EXPIRY_DAYS = 30

export const SCOPE_LABELS: Record<ApiTokenScope, MessageKey> = {
  files: 'tokens.scope.files',
  notes: 'tokens.scope.notes',
  requests: 'tokens.scope.requests',
}

/** Whether the server offers tokens: login is on and some creation needs it. */
export function tokensOffered(): boolean {
  const value = config.value
  if (!value?.loginEnabled) return false
  const { files, notes, requests } = value.loginRequired
  return files || notes || requests
}

export class TokenSettings {
  tokens = $state<ApiTokenInfo[]>([])
  loaded = $state(false)
  loadProblem = $state<string | null>(null)

  name = $state('')
  /** The scopes a new token gets: what this server protects, all ticked at first. */
  scopes = $state<ApiTokenScope[]>([])
  expiresInDays = $state(DEFAULT_EXPIRY_DAYS)
  creating = $state(false)
  problem = $state<string | null>(null)
  /** The token just made; dropped once the user is done with it. */
  created = $state<CreateApiTokenResponse | null>(null)

  /** Ids of tokens being revoked. */
  revoking = $state<string[]>([])

  constructor(offered: readonly ApiTokenScope[]) {
    this.scopes = [...offered]
  }

  async load(): Promise<void> {
    try {
      this.tokens = (await listApiTokens(pageApi())).tokens
      this.loadProblem = null
    } catch (error) {
      this.loadProblem = errorMessage(error, 'create')
    }
    this.loaded = true
  }

  async create(): Promise<void> {
    const name = this.name.trim()
    if (name === '' || [...name].length > API_TOKEN_NAME_MAX) {
      this.problem = t('tokens.form.nameMissing')
      return
    }
    if (this.scopes.length === 0) {
      this.problem = t('tokens.form.scopesMissing')
      return
    }
    this.creating = true
    this.problem = null
    try {
      const created = await createApiToken(pageApi(), {
        name,
        scopes: this.scopes,
        expiresInDays: this.expiresInDays,
      })
      this.created = created
      const { token: _token, ...info } = created
      this.tokens = [info, ...this.tokens]
      this.name = ''
    } catch (error) {
      this.problem = errorMessage(error, 'create')
    } finally {
      this.creating = false
    }
  }

  /** Forgets the shown token: it cannot be shown again. */
  dismissCreated(): void {
    this.created = null
  }

  async revoke(id: string): Promise<void> {
    this.revoking = [...this.revoking, id]
    try {
      await revokeApiToken(pageApi(), id)
      this.tokens = this.tokens.filter((token) => token.id !== id)
      if (this.created?.id === id) this.created = null
      this.loadProblem = null
    } catch (error) {
      this.loadProblem = errorMessage(error, 'create')
    } finally {
      this.revoking = this.revoking.filter((other) => other !== id)
    }
  }
}
