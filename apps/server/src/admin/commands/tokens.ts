/**
 * `fileshare-admin tokens` (docs/operations.md, API tokens): every personal API token with its
 * owner's OIDC subject, name, scopes, creation, last use and expiry, and `tokens revoke <id>`.
 * Never a token or its hash: the database holds no token to show.
 * May touch: nothing directly; through access/api-tokens.ts.
 */
import { isUuid } from '@fileshare/protocol'

import type { ApiTokens, OwnedApiTokenInfo } from '../../access/api-tokens.js'
import { ADMIN_EXIT } from '../admin-error.js'
import { table, type CommandOutput } from '../output.js'

export type TokensCommandArgs = { action: 'list' } | { action: 'revoke'; id: string }

export async function tokensCommand(
  services: { apiTokens: ApiTokens },
  args: TokensCommandArgs,
): Promise<CommandOutput> {
  if (args.action === 'list') {
    const tokens = await services.apiTokens.listAll()
    return { json: { tokens }, text: tokenTable(tokens) }
  }
  const id = args.id.trim().toLowerCase()
  const revoked = isUuid(id) && (await services.apiTokens.revokeAny(id))
  return revoked
    ? { json: { revoked: { id } }, text: `revoked API token ${id}` }
    : {
        json: { revoked: null, id },
        text: `no API token ${args.id}`,
        exitCode: ADMIN_EXIT.notFound,
      }
}

function tokenTable(tokens: OwnedApiTokenInfo[]): string {
  if (tokens.length === 0) return '(no API tokens)'
  const rows = tokens.map((t) => [
    t.id,
    t.subject,
    t.name,
    t.scopes.join(','),
    t.createdAt,
    t.lastUsedAt ?? '-',
    t.expiresAt,
  ])
  return table(['ID', 'OWNER', 'NAME', 'SCOPES', 'CREATED', 'LAST USED', 'EXPIRES'], rows)
}
