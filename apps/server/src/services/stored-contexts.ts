/**
 * What a chunk session kept in the database carries for its finalize, as the JSON of its
 * `context` column: a normal upload's spec, or an upload into a request's declared fields. Token
 * hashes are stored as base64; tokens themselves never are.
 */
import type { RequestUploadInit } from './request-validation.js'
import type { UploadSpec } from './uploads.js'

export function encodeSpec(spec: UploadSpec): string {
  return JSON.stringify({
    ...spec,
    authTokenHash: spec.authTokenHash.toString('base64'),
    ownerTokenHash: spec.ownerTokenHash.toString('base64'),
  })
}

export function decodeSpec(context: string): UploadSpec {
  const spec = JSON.parse(context) as Omit<UploadSpec, 'authTokenHash' | 'ownerTokenHash'> & {
    authTokenHash: string
    ownerTokenHash: string
  }
  return {
    ...spec,
    authTokenHash: Buffer.from(spec.authTokenHash, 'base64'),
    ownerTokenHash: Buffer.from(spec.ownerTokenHash, 'base64'),
  }
}

/** An upload into a request: its declared fields without the upload token, checked at init. */
export function encodeRequestInit(init: RequestUploadInit): string {
  return JSON.stringify({
    salt: init.salt.toString('base64'),
    size: init.size,
    fileCount: init.fileCount,
  })
}

export function decodeRequestInit(context: string): RequestUploadInit {
  const init = JSON.parse(context) as { salt: string; size: number; fileCount: number }
  return {
    uploadToken: null,
    salt: Buffer.from(init.salt, 'base64'),
    size: init.size,
    fileCount: init.fileCount,
  }
}
