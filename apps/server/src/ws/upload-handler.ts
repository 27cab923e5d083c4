/**
 * What an upload socket's route provides to the connection that runs it (upload-connection.ts):
 * opening or resuming a session from the first frame, finalizing and revoking it.
 * May touch: nothing (pure).
 */
import type { IncomingMessage } from 'node:http'

import { ERROR_MESSAGES, type UploadWsDoneFrame } from '@fileshare/protocol'

import { HttpError } from '../http-error.js'
import type { UploadSession } from '../sessions/upload-session.js'

/** A text frame that parsed as a JSON object; its `type` picks what it is. */
export type ControlFrame = Record<string, unknown>

/** The fields of the `done` frame besides `type`; routes may add some (the share `url`). */
export type DoneFields = Omit<UploadWsDoneFrame, 'type'> & Record<string, unknown>

/** What a route hands back once its `init` frame has opened a session. */
export interface OpenedUpload {
  session: UploadSession<unknown>
  /** Commits and records the upload; an HttpError refuses it (close 1008). */
  finalize(frame: ControlFrame): Promise<DoneFields>
  /** Deletes the upload `finalize` stored while its socket failed or closed before `done`. */
  revoke(id: string): Promise<void>
}

/** The part of an upload socket that differs between normal uploads and uploads into requests. */
export interface UploadSocketHandler {
  /** Validates the `init` frame and opens a session; an HttpError refuses it (close 1008). */
  init(frame: ControlFrame, request: IncomingMessage): Promise<OpenedUpload>
  /** Continues a session from a durable point (docs/api.md); a refusal changes nothing. */
  resume(frame: ControlFrame, request: IncomingMessage): Promise<OpenedUpload>
  /** The longest `finalize` frame, when longer than a control frame (a request's has metadata). */
  readonly finalizeFrameMaxBytes?: number
}

/** The handler of one upload socket path, or undefined for a path of another route. */
export type UploadSocketRoute = (pathname: string) => UploadSocketHandler | undefined

/** The `offset` of a `resume` frame (docs/api.md): a whole number of bytes from 0, else 400. */
export function resumeOffset(frame: ControlFrame): number {
  const { offset } = frame
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
    throw new HttpError(400, ERROR_MESSAGES.invalidRequest, {
      details: { offset: 'must be a whole number of bytes' },
    })
  }
  return offset
}
