/** Reads the server's settings from the environment once, typed, failing fast on a bad value. */

export interface Config {
  port: number
  host: string
}

/** A setting that cannot be used; its message is the one line printed before the server stops. */
export class ConfigError extends Error {
  constructor(variable: string, value: string, accepts: string) {
    super(`${variable} must be ${accepts}, got ${JSON.stringify(value)}`)
    this.name = 'ConfigError'
  }
}

const DEFAULT_PORT = 3000
const DEFAULT_HOST = '0.0.0.0'

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: readPort(env, 'PORT', DEFAULT_PORT),
    host: readHost(env, 'HOST', DEFAULT_HOST),
  }
}

function readPort(env: NodeJS.ProcessEnv, variable: string, fallback: number): number {
  const value = env[variable]
  if (value === undefined || value === '') return fallback
  const port = /^\d{1,5}$/.test(value) ? Number(value) : NaN
  // Port 0 is accepted so that the operating system can pick a free port.
  if (!Number.isInteger(port) || port > 65535) {
    throw new ConfigError(variable, value, 'an integer from 0 to 65535')
  }
  return port
}

function readHost(env: NodeJS.ProcessEnv, variable: string, fallback: string): string {
  const value = env[variable]
  if (value === undefined || value === '') return fallback
  if (!/^[A-Za-z0-9.:[\]%_-]+$/.test(value)) {
    throw new ConfigError(variable, value, 'a host name or an IPv4 or IPv6 address')
  }
  return value
}
