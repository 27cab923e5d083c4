/**
 * One byte range of an upload's or an inbox file's ciphertext under its read grant (docs/api.md,
 * Read grants): the request, and the check that the server answered exactly that range. Used by a
 * download that resumes and by the reader of an archive's parts.
 */
import { ProtocolError } from '../errors.js'
import { HEADERS } from '../wire/headers.js'
import { PATHS } from '../wire/routes.js'
import type { ApiClient } from './api.js'

/** Where an item's counted download is, and the headers that admit its reader. */
export interface CountedSource {
  /** `PATHS.download(id)` or `PATHS.inboxFile(id, uid)`. */
  path: string
  /** `X-Auth-Token` of an upload, `X-Inbox-Token` of an inbox file. */
  auth: Record<string, string>
}

/** The counted download of upload `id`, read with its auth token. */
export function uploadSource(id: string, authToken: string): CountedSource {
  return { path: PATHS.download(id), auth: { [HEADERS.authToken]: authToken } }
}

export interface GrantedRange {
  source: CountedSource
  grant: string
  /** First and last byte, inclusive, of the ciphertext of `size` bytes. */
  from: number
  to: number
  size: number
  signal?: AbortSignal | undefined
}

export async function fetchGrantedRange(
  api: ApiClient,
  range: GrantedRange,
): Promise<ReadableStream<Uint8Array>> {
  const headers = {
    ...range.source.auth,
    [HEADERS.readGrant]: range.grant,
    [HEADERS.range]: `bytes=${range.from}-${range.to}`,
  }
  const init = range.signal ? { headers, signal: range.signal } : { headers }
  const response = await api.raw('GET', range.source.path, init)
  const expected = `bytes ${range.from}-${range.to}/${range.size}`
  if (response.status !== 206 || response.headers.get(HEADERS.contentRange) !== expected) {
    await response.body?.cancel().catch(() => undefined)
    throw new ProtocolError('NETWORK', 'The server answered a range with other bytes')
  }
  if (!response.body) throw new ProtocolError('NETWORK', 'The server answered no bytes')
  return response.body
}
