/**
 * Ids the server assigns (uploads, notes, requests, inbox entries) reach URLs, file names and
 * folders of the clients; each is checked to be a UUID as the spec writes them before any use,
 * so that a broken or hostile server cannot steer a path with `../` or similar.
 */
import { ProtocolError } from '../errors.js'
import { isUuid } from '../validate.js'

export type ServerIdKind = 'upload' | 'note' | 'request' | 'inbox entry'

/** The error of an answer whose id is not one; NETWORK, as any other malformed answer. */
export function badServerId(kind: ServerIdKind): ProtocolError {
  return new ProtocolError('NETWORK', `The server answered with an invalid ${kind} id`)
}

/** `value` when it is a UUID (spec: Encodings and identifiers), else the error above. */
export function requireServerId(value: unknown, kind: ServerIdKind): string {
  if (!isUuid(value)) throw badServerId(kind)
  return value
}

/**
 * The id of an answer about `expected` (`GET /api/info/:id`, `GET /api/note/:id`): a server that
 * names another item in it is answering something else.
 */
export function requireSameId(value: unknown, expected: string, kind: ServerIdKind): string {
  if (requireServerId(value, kind) !== expected) throw badServerId(kind)
  return expected
}
