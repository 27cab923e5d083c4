/** The personal API token routes (docs/api.md, API tokens), called with the login session. */
import type {
  ApiTokenListResponse,
  CreateApiTokenBody,
  CreateApiTokenResponse,
} from '../wire/tokens.js'
import type { ApiClient } from './api.js'

const TOKENS_PATH = '/api/tokens'

/** `GET /api/tokens`: the signed-in user's tokens, newest first. */
export function listApiTokens(api: ApiClient): Promise<ApiTokenListResponse> {
  return api.json<ApiTokenListResponse>('GET', TOKENS_PATH)
}

/** `POST /api/tokens`: a new token, whose secret the answer shows this once. */
export function createApiToken(
  api: ApiClient,
  body: CreateApiTokenBody,
): Promise<CreateApiTokenResponse> {
  return api.json<CreateApiTokenResponse>('POST', TOKENS_PATH, { json: body })
}

/** `DELETE /api/tokens/:id`: revokes one of the user's tokens at once. */
export async function revokeApiToken(api: ApiClient, id: string): Promise<void> {
  await api.json('DELETE', `${TOKENS_PATH}/${encodeURIComponent(id)}`)
}
