/**
 * The ids in route paths. One that is not a UUID names nothing, so it answers the 404 of an
 * unknown item before any lookup.
 * May touch: nothing (pure).
 */
import { ERROR_MESSAGES, isUuid } from '@fileshare/protocol'
import type { Context } from 'hono'

import type { AppEnv } from '../app-env.js'
import { HttpError } from '../http-error.js'

function uuidParam(c: Context<AppEnv>, message: string, name = 'id'): string {
  const id = c.req.param(name) ?? ''
  if (!isUuid(id)) throw new HttpError(404, message)
  return id
}

export const uploadId = (c: Context<AppEnv>) => uuidParam(c, ERROR_MESSAGES.uploadNotFound)

export const noteId = (c: Context<AppEnv>) => uuidParam(c, ERROR_MESSAGES.noteNotFound)

export const requestId = (c: Context<AppEnv>) => uuidParam(c, ERROR_MESSAGES.requestNotFound)

/** The `:uid` of an upload into a request. */
export const requestUploadId = (c: Context<AppEnv>) =>
  uuidParam(c, ERROR_MESSAGES.uploadNotFound, 'uid')
