/**
 * What a chunk session kept in the database carries for its finalize, as the JSON of its
 * `context` column: a normal upload's spec, or an upload into a request's declared fields. Token
 * hashes are stored as base64; tokens themselves never are.
 * May touch: nothing (pure).
 */
import type { RequestUploadInit } from '../requests/request-validation.js'
import type { UploadSpec } from '../uploads/upload-spec.js'

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
    ...(init.senderNote ? { senderNote: true } : {}),
  })
}

/**
 * What the context of a session holding one of its request's note slots contains, so that SQL
 * can count those sessions; contexts written before note slots existed hold none.
 */
export const NOTE_SLOT_CONTEXT = '"senderNote":true'

export function decodeRequestInit(context: string): RequestUploadInit {
  const init = JSON.parse(context) as {
    salt: string
    size: number
    fileCount: number
    senderNote?: boolean
  }
  return {
    uploadToken: null,
    salt: Buffer.from(init.salt, 'base64'),
    size: init.size,
    fileCount: init.fileCount,
    senderNote: init.senderNote === true,
  }
}

/** Whether a request upload session's stored context holds one of the request's note slots. */
export function holdsNoteSlot(context: string): boolean {
  return context.includes(NOTE_SLOT_CONTEXT)
}
