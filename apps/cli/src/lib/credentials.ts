/**
 * Session tokens from `fileshare login`, or personal API tokens from `fileshare login --token`,
 * one per server, in `credentials.json` (0600) of the config folder. A token is sent only to the
 * server that issued it. `FILESHARE_TOKEN` in the environment takes the place of the stored one.
 */
import { join } from 'node:path'

import { configDir, ensureConfigDir, readJsonFile, updateJsonFile } from './config-dir.js'

export const CREDENTIALS_FILE = 'credentials.json'

/** An API token in the environment, used in place of the stored login of whichever server. */
export const TOKEN_ENV = 'FILESHARE_TOKEN'

export interface StoredSession {
  token: string
  /** ISO timestamp of the login. */
  savedAt: string
}

interface CredentialsFile {
  version: 1
  sessions: Record<string, StoredSession>
}

function parse(value: unknown): CredentialsFile {
  const empty: CredentialsFile = { version: 1, sessions: {} }
  if (typeof value !== 'object' || value === null) return empty
  const sessions = (value as { sessions?: unknown }).sessions
  if (typeof sessions !== 'object' || sessions === null) return empty
  const valid: Record<string, StoredSession> = {}
  for (const [server, session] of Object.entries(sessions)) {
    const s = session as Partial<StoredSession> | null
    if (typeof s?.token === 'string' && typeof s.savedAt === 'string') {
      valid[server] = { token: s.token, savedAt: s.savedAt }
    }
  }
  return { version: 1, sessions: valid }
}

export class Credentials {
  readonly path: string

  constructor(private readonly dir = configDir()) {
    this.path = join(dir, CREDENTIALS_FILE)
  }

  async get(baseUrl: string): Promise<StoredSession | undefined> {
    return parse(await readJsonFile(this.path)).sessions[baseUrl]
  }

  /** The token to send to `baseUrl`: `FILESHARE_TOKEN` when set, else the stored one. */
  async tokenFor(baseUrl: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
    const fromEnv = env[TOKEN_ENV]?.trim()
    if (fromEnv) return fromEnv
    return (await this.get(baseUrl))?.token
  }

  async save(baseUrl: string, token: string): Promise<void> {
    await ensureConfigDir(this.dir)
    await updateJsonFile(this.path, (current) => {
      const file = parse(current)
      file.sessions[baseUrl] = { token, savedAt: new Date().toISOString() }
      return file
    })
  }

  /** Forgets the server's token; answers whether there was one. */
  async remove(baseUrl: string): Promise<boolean> {
    let removed = false
    await ensureConfigDir(this.dir)
    await updateJsonFile(this.path, (current) => {
      const file = parse(current)
      if (!(baseUrl in file.sessions)) return undefined
      delete file.sessions[baseUrl]
      removed = true
      return file
    })
    return removed
  }
}
