/**
 * What a client declares before sending an upload's bytes, the same on every transport (spec:
 * POST /api/upload, POST /api/upload/init, the WebSocket `init` frame): the protocol's
 * `Declaration`, decoded and checked against the settings, with its tokens reduced to the hashes
 * the server keeps.
 *
 * May touch: nothing (pure).
 */
import {
  Declaration,
  fromBase64Url,
  type DeclarationLimits,
  type DeclaredSizeHeader,
  type ReceivedHeaderValues,
} from '@fileshare/protocol'

import type { Config } from '../config.js'
import { hashToken } from '../access/tokens.js'
import { decodedOrThrow } from '../validation.js'

/** What a client declares before sending bytes: the same on every transport. */
export interface UploadSpec {
  size: number
  salt: string
  maxDownloads: number
  expireSec: number
  fileCount: number
  hasPassword: boolean
  passwordSalt: string | null
  passwordAlgo: string | null
  authTokenHash: Buffer
  ownerTokenHash: Buffer
}

/** A declaration checked at init: what the session keeps, and the owner token its finalize needs. */
export interface DeclaredUpload {
  spec: UploadSpec
  ownerToken: string
}

/** The settings a declaration is checked against. */
export type UploadSpecLimits = Pick<
  Config,
  'fileDownloadOptions' | 'fileExpireOptionsSec' | 'fileMaxFilesPerUpload' | 'fileMaxSize'
>

function declarationLimits(config: UploadSpecLimits): DeclarationLimits {
  return {
    downloadOptions: config.fileDownloadOptions,
    expireOptionsSec: config.fileExpireOptionsSec,
    maxFilesPerUpload: config.fileMaxFilesPerUpload,
    maxSize: config.fileMaxSize,
  }
}

function declaredUpload(declaration: Declaration): DeclaredUpload {
  const { password } = declaration
  const spec: UploadSpec = {
    size: declaration.size,
    salt: declaration.salt,
    maxDownloads: declaration.maxDownloads,
    expireSec: declaration.expireSec,
    fileCount: declaration.fileCount,
    hasPassword: password !== null,
    passwordSalt: password?.salt ?? null,
    passwordAlgo: password?.algo ?? null,
    authTokenHash: hashToken(fromBase64Url(declaration.authToken)),
    ownerTokenHash: hashToken(fromBase64Url(declaration.ownerToken)),
  }
  return { spec, ownerToken: declaration.ownerToken }
}

/**
 * The declaration in the headers of `POST /api/upload` (`sizeHeader` `content-length`) or
 * `POST /api/upload/init` (`x-content-length`); 400 or 413 as the spec says.
 */
export function parseUploadHeaders(
  config: UploadSpecLimits,
  headers: ReceivedHeaderValues,
  sizeHeader: DeclaredSizeHeader,
): DeclaredUpload {
  return declaredUpload(
    decodedOrThrow(Declaration.fromHeaders(headers, declarationLimits(config), sizeHeader)),
  )
}

/** The declaration in an upload socket's `init` frame, checked as the HTTP init's headers are. */
export function parseUploadFrame(config: UploadSpecLimits, frameHeaders: unknown): DeclaredUpload {
  return declaredUpload(
    decodedOrThrow(Declaration.fromFrame(frameHeaders, declarationLimits(config))),
  )
}
