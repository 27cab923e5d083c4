/**
 * Which server a creating command talks to: `--server`, else `FILESHARE_SERVER`, else `server` in
 * `config.json` of the config folder, else http://localhost:3000. Commands given a share link talk
 * to the server named in the link instead.
 */
import { join } from 'node:path'

import { configDir, readJsonFile } from './config-dir.js'
import { UsageError } from './errors.js'

export const DEFAULT_SERVER = 'http://localhost:3000'
export const SERVER_ENV = 'FILESHARE_SERVER'
export const CONFIG_FILE = 'config.json'

export type ServerSource = 'option' | 'environment' | 'config file' | 'default'

export interface ServerChoice {
  /** Origin plus any path prefix, without a trailing slash. */
  baseUrl: string
  source: ServerSource
}

/** An http(s) base address without query, fragment, credentials or trailing slash. */
export function normalizeServer(text: string, from = 'the server address'): string {
  let url: URL
  try {
    url = new URL(text.trim())
  } catch {
    throw new UsageError(`${from} is not a URL: ${text}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${from} must start with http:// or https://: ${text}`)
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new UsageError(`${from} must be a plain address without credentials, query or #: ${text}`)
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`
}

export async function resolveServer(
  option: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ServerChoice> {
  if (option !== undefined)
    return { baseUrl: normalizeServer(option, '--server'), source: 'option' }
  const fromEnv = env[SERVER_ENV]
  if (fromEnv) return { baseUrl: normalizeServer(fromEnv, SERVER_ENV), source: 'environment' }
  const path = join(configDir(env), CONFIG_FILE)
  const config = await readJsonFile(path)
  if (config !== undefined) {
    if (typeof config !== 'object' || config === null || Array.isArray(config)) {
      throw new UsageError(`${path} must hold a JSON object such as {"server": "https://…"}`)
    }
    const server = (config as { server?: unknown }).server
    if (server !== undefined) {
      if (typeof server !== 'string') throw new UsageError(`"server" in ${path} must be a string`)
      return { baseUrl: normalizeServer(server, `"server" in ${path}`), source: 'config file' }
    }
  }
  return { baseUrl: DEFAULT_SERVER, source: 'default' }
}
