/**
 * Reads environment variables one by one, each with a default and its accepted form, throwing a
 * ConfigError that names the variable, the value and what it accepts. Remembers nothing else.
 * May touch: nothing (pure): reads the environment object it is given.
 */
import { formatBytes, parseBytes } from '@fileshare/protocol'

/** A setting that cannot be used; its message is the one line printed before the server stops. */
export class ConfigError extends Error {
  constructor(variable: string, value: string, accepts: string) {
    super(`${variable} must be ${accepts}, got ${JSON.stringify(value)}`)
    this.name = 'ConfigError'
  }
}

const LOCALE_FORMAT = 'language tags such as en, de or pt-BR'

/**
 * A language tag in its canonical spelling (`pt-br` → `pt-BR`), or null when it is not a
 * language with an optional script and region (BCP 47, RFC 5646 §2.1); extensions are refused.
 */
function canonicalLocale(value: string): string | null {
  let tag: string
  try {
    ;[tag = ''] = Intl.getCanonicalLocales(value)
  } catch {
    return null
  }
  return /^[a-z]{2,3}(-[A-Z][a-z]{3})?(-(?:[A-Z]{2}|\d{3}))?$/.test(tag) ? tag : null
}

export type Env = Record<string, string | undefined>

const PLAIN_HTTP_URL = 'an http or https URL without query or fragment'

export function parseUrl(value: string): URL | null {
  try {
    return new URL(value)
  } catch {
    return null
  }
}

const isHttp = (url: URL | null): url is URL =>
  url?.protocol === 'http:' || url?.protocol === 'https:'

const isPlainHttp = (url: URL | null): url is URL => isHttp(url) && !url.search && !url.hash

/** A longer chain of proxies than this is a mistake in the setting rather than a deployment. */
const MAX_TRUSTED_PROXIES = 16

export class Reader {
  constructor(private readonly env: Env) {}

  private raw(name: string): string | undefined {
    const value = this.env[name]
    return value === undefined || value.trim() === '' ? undefined : value.trim()
  }

  /** The variable as `parse` reads it, `fallback` when unset; undefined from `parse` refuses it. */
  private parsed<T>(
    name: string,
    fallback: T,
    accepts: string,
    parse: (value: string) => T | undefined,
  ): T {
    const value = this.raw(name)
    if (value === undefined) return fallback
    const result = parse(value)
    if (result === undefined) throw new ConfigError(name, value, accepts)
    return result
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback
  }

  /** A value with no default: its absence is an error that says when it is needed. */
  required(name: string, accepts: string): string {
    const value = this.raw(name)
    if (value === undefined) throw new ConfigError(name, '', accepts)
    return value
  }

  optionalString(name: string): string | null {
    return this.raw(name) ?? null
  }

  integer(name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    const inRange = (n: number) => Number.isSafeInteger(n) && n >= min && n <= max
    return this.parsed(name, fallback, `an integer from ${min} to ${max}`, (value) =>
      /^\d+$/.test(value) && inRange(Number(value)) ? Number(value) : undefined,
    )
  }

  /** A size in bytes: plain bytes, or a number with KB/KiB, MB/MiB, GB/GiB or TB/TiB (powers of 1024). */
  size(name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    const range =
      max === Number.MAX_SAFE_INTEGER
        ? `of at least ${min} bytes`
        : `from ${min} to ${max} bytes (${formatBytes(max, { locale: 'en' })})`
    const accepts = `a size ${range}, such as 1048576, 512KB, 100MB or 2GB`
    return this.parsed(name, fallback, accepts, (value) => {
      try {
        const bytes = parseBytes(value)
        return Number.isSafeInteger(bytes) && bytes >= min && bytes <= max ? bytes : undefined
      } catch {
        return undefined
      }
    })
  }

  /** TRUST_PROXY: a boolean (one proxy or none) or the number of proxies in the chain. */
  proxyCount(name: string): number {
    const accepts = `true, false, or the number of proxies in front of the service (0 to ${MAX_TRUSTED_PROXIES})`
    return this.parsed(name, 0, accepts, (value) => {
      if (/^(true|yes|on)$/i.test(value)) return 1
      if (/^(false|no|off)$/i.test(value)) return 0
      const count = /^\d{1,2}$/.test(value) ? Number(value) : NaN
      return count >= 0 && count <= MAX_TRUSTED_PROXIES ? count : undefined
    })
  }

  boolean(name: string, fallback: boolean): boolean {
    return this.parsed(name, fallback, 'true or false', (value) => {
      if (/^(true|1|yes|on)$/i.test(value)) return true
      return /^(false|0|no|off)$/i.test(value) ? false : undefined
    })
  }

  /** A comma-separated list of distinct positive integers, kept in ascending order. */
  integerList(name: string, fallback: number[]): number[] {
    const accepts = 'a comma-separated list of distinct positive integers'
    return this.parsed(name, fallback, accepts, (value) => {
      const numbers = value
        .split(',')
        .map((item) => (/^\d+$/.test(item.trim()) ? Number(item) : NaN))
      const valid = numbers.every((n) => Number.isSafeInteger(n) && n >= 1)
      return valid && new Set(numbers).size === numbers.length
        ? numbers.sort((a, b) => a - b)
        : undefined
    })
  }

  oneOf<T extends string>(name: string, fallback: T, options: readonly T[]): T {
    return this.parsed(name, fallback, `one of ${options.join(', ')}`, (value) =>
      options.find((option) => option === value),
    )
  }

  listOf<T extends string>(name: string, fallback: T[], options: readonly T[]): T[] {
    const accepts = `a comma-separated list of ${options.join(', ')}`
    return this.parsed(name, fallback, accepts, (value) => {
      const items = value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '')
      const known = items.every((item) => (options as readonly string[]).includes(item))
      return known ? ([...new Set(items)] as T[]) : undefined
    })
  }

  /** A default that must be one of the options; without the variable, the preferred value if listed. */
  defaultOf(name: string, options: number[], preferred: number): number {
    const fallback = options.includes(preferred) ? preferred : options[0]!
    const value = this.integer(name, fallback, 1)
    if (!options.includes(value)) {
      throw new ConfigError(name, String(value), `one of ${options.join(', ')}`)
    }
    return value
  }

  url(name: string, fallback: string): string {
    const value = this.raw(name) ?? fallback
    const url = parseUrl(value)
    if (url === null) throw new ConfigError(name, value, 'an http or https URL')
    if (!isPlainHttp(url)) throw new ConfigError(name, value, PLAIN_HTTP_URL)
    return url.href.replace(/\/+$/, '')
  }

  /** An optional link for people to follow (imprint, privacy): http or https only, never a script. */
  linkUrl(name: string): string | null {
    return this.parsed(name, null, 'an http or https URL', (value) => {
      const url = parseUrl(value)
      return isHttp(url) ? url.href : undefined
    })
  }

  /** An OIDC issuer: an http or https URL, kept as written since ID tokens must name it exactly. */
  issuer(name: string): string | null {
    return this.parsed(name, null, PLAIN_HTTP_URL, (value) =>
      isPlainHttp(parseUrl(value)) ? value : undefined,
    )
  }

  host(name: string, fallback: string): string {
    return this.parsed(name, fallback, 'a host name or an IPv4 or IPv6 address', (value) =>
      /^[A-Za-z0-9.:[\]%_-]+$/.test(value) ? value : undefined,
    )
  }

  /** A comma-separated list of distinct language tags such as `de` or `pt-BR`, canonicalised. */
  localeList(name: string): string[] {
    const accepts = `a comma-separated list of distinct ${LOCALE_FORMAT}`
    return this.parsed<string[]>(name, [], accepts, (value) => {
      const tags = value.split(',').map((item) => canonicalLocale(item.trim()))
      const valid = tags.every((tag) => tag !== null) && new Set(tags).size === tags.length
      return valid ? (tags as string[]) : undefined
    })
  }

  /** A language tag that must be one of `offered` (any tag when it is empty). */
  localeOf(name: string, offered: string[], preferred: string): string {
    const value = this.raw(name)
    if (value === undefined)
      return offered.length === 0 || offered.includes(preferred) ? preferred : offered[0]!
    const tag = canonicalLocale(value)
    if (tag === null) throw new ConfigError(name, value, LOCALE_FORMAT)
    if (offered.length > 0 && !offered.includes(tag)) {
      throw new ConfigError(name, value, `one of LOCALES (${offered.join(', ')})`)
    }
    return tag
  }

  color(name: string): string | null {
    return this.parsed(name, null, 'a hex color such as #3b82f6', (value) =>
      /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i.test(value) ? value : undefined,
    )
  }
}
