/**
 * Who may create content (spec: Authentication, Optional login): a service left out of
 * ENABLED_SERVICES accepts nothing new (403), and with OIDC_PROTECT_* a creation needs a login
 * (401). Reading stays public. One guard serves the HTTP routes and the upload sockets alike.
 */
import { ERROR_MESSAGES } from '@fileshare/protocol'

import type { Config, ServiceName } from '../config.js'
import { HttpError } from '../http-error.js'

/** Reads a request header by lower-case name, whatever the transport. */
export type HeaderReader = (name: string) => string | undefined

export type CreationGuard = (service: ServiceName, header: HeaderReader) => Promise<void>

const DISABLED: Record<ServiceName, string> = {
  file: ERROR_MESSAGES.fileUploadsDisabled,
  note: ERROR_MESSAGES.notesDisabled,
  request: ERROR_MESSAGES.fileRequestsDisabled,
}

export function creationGuard(config: Config): CreationGuard {
  const protect: Record<ServiceName, boolean> = {
    file: config.oidcProtectFiles,
    note: config.oidcProtectNotes,
    request: config.oidcProtectRequests,
  }
  return async (service) => {
    if (!config.enabledServices.includes(service)) throw new HttpError(403, DISABLED[service])
    // Until a login session is accepted here, a protected creation is refused, never allowed.
    if (protect[service]) throw new HttpError(401, ERROR_MESSAGES.loginRequired)
  }
}
