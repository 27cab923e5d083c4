/**
 * What a session uploading into a request carries, and how to pick a request's sessions among
 * all the session layer holds; the inbox and the request uploads both read it.
 * May touch: nothing (pure).
 */
import type { RequestUploadInit } from './request-validation.js'

/** The context of a session uploading into a request (normal uploads carry `kind: 'file'`). */
export interface RequestUploadContext {
  kind: 'request'
  requestId: string
  init: RequestUploadInit
  clientIp: string
}

/** Picks the upload sessions of request `requestId`. */
export function belongsTo(requestId: string) {
  return (context: unknown): context is RequestUploadContext => {
    const request = context as RequestUploadContext | undefined
    return request?.kind === 'request' && request.requestId === requestId
  }
}
