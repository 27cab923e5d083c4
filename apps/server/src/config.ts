/**
 * The server's settings, typed: what every other module reads of them, and the facts they share.
 * load-config.ts reads them from the environment, and its result is the one spelling of their type.
 * May touch: nothing (pure).
 */
import { UPLOAD_CHUNK_BYTES } from '@fileshare/protocol'

import type { loadConfig } from './load-config.js'

export { ConfigError } from './config-reader.js'
export { WS_MAX_BUFFER_MIN, loginEnabled } from './load-config.js'

export type Config = ReturnType<typeof loadConfig>
export type LogLevel = Config['logLevel']
export type ServiceName = Config['enabledServices'][number]
export type OidcProviderKey = Config['oidcProvider']
export type NotifySettings = Config['notify']
export type MetricsSettings = NonNullable<Config['metrics']>
export type S3Settings = NonNullable<Config['s3']>

/**
 * The chunk size clients are told to send (GET /api/config `uploadChunkSize`): 10 MB unless the
 * server accepts less per chunk. Chunked sessions kept in the database lay out their chunks by it.
 */
export function uploadChunkSize(config: Config): number {
  return Math.min(UPLOAD_CHUNK_BYTES, config.fileChunkMaxSize)
}
