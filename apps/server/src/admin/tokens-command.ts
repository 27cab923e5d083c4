/**
 * `fileshare-admin tokens` (docs/operations.md, API tokens): every personal API token with its
 * owner's OIDC subject, name, scopes, creation, last use and expiry, and `tokens revoke <id>`.
 * Never a token or its hash: the database holds no token to show.
 */
import { isUuid } from '@fileshare/protocol'

import type { ApiTokens, OwnedApiTokenInfo } from '../services/api-tokens.js'

/** What the command answers: the `--json` document, the text for a person, and the exit code. */
export interface TokensCommandOutput {
  json: unknown
  text: string
  /** 2 when the token to revoke does not exist. */
  exitCode?: number
}

export type TokensCommandArgs = { action: 'list' } | { action: 'revoke'; id: string }

export async function tokensCommand(
  services: { apiTokens: ApiTokens },
  args: TokensCommandArgs,
): Promise<TokensCommandOutput> {
  if (args.action === 'list') {
    const tokens = await services.apiTokens.listAll()
    return { json: { tokens }, text: tokenTable(tokens) }
  }
  const id = args.id.trim().toLowerCase()
  const revoked = isUuid(id) && (await services.apiTokens.revokeAny(id))
  return revoked
    ? { json: { revoked: { id } }, text: `revoked API token ${id}` }
    : { json: { revoked: null, id }, text: `no API token ${args.id}`, exitCode: 2 }
}

const HEADER = ['ID', 'OWNER', 'NAME', 'SCOPES', 'CREATED', 'LAST USED', 'EXPIRES']

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
  const widths = HEADER.map((title, i) => Math.max(title.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd()
  return [line(HEADER), ...rows.map(line)].join('\n')
}
