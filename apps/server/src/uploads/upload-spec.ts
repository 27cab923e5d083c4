/**
 * What a client declares before sending an upload's bytes, the same on every transport (spec:
 * POST /api/upload, POST /api/upload/init, the WebSocket `init` frame): the protocol's
 * `Declaration`, decoded and checked against the settings, with its tokens reduced to the hashes
 * the server keeps.
 *
 * May touch: nothing (pure).
 */
import {
  fromBase64Url,
  type Decoded,
  type Declaration,
  type DeclarationLimits,
} from '@fileshare/protocol'

import type { Config } from '../config.js'
import { hashToken } from '../access/tokens.js'
import { decodedOrThrow } from '../validation.js'

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

/**
 * The declaration `decode` reads within the settings' limits, or its 400 or 413 as the spec says.
 */
export function declaredUpload(
  config: Pick<
    Config,
    'fileDownloadOptions' | 'fileExpireOptionsSec' | 'fileMaxFilesPerUpload' | 'fileMaxSize'
  >,
  decode: (limits: DeclarationLimits) => Decoded<Declaration>,
): DeclaredUpload {
  const declaration = decodedOrThrow(
    decode({
      downloadOptions: config.fileDownloadOptions,
      expireOptionsSec: config.fileExpireOptionsSec,
      maxFilesPerUpload: config.fileMaxFilesPerUpload,
      maxSize: config.fileMaxSize,
    }),
  )
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
