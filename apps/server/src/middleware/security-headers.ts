/**
 * Browser hardening headers on every answer: API, static files, 404 and 500 alike. The service's
 * HTTP server puts them on each response before the app runs (listen.ts). The policy is the
 * protocol package's, the one the web app's integrity manifest records, and allows nothing from
 * other hosts unless the caller names them.
 * May touch: nothing (pure).
 */
import { contentSecurityPolicy } from '@fileshare/protocol'

export interface SecurityHeadersOptions {
  /**
   * Origins the web app may fetch from besides its own; the S3 backend needs its endpoint here,
   * as downloads fetch the blob from a presigned URL (spec: What the service does, 7).
   */
  connectOrigins?: readonly string[]
  /** The `'sha256-…'` sources of the hosted web app's inline import map (web-integrity.ts). */
  scriptHashes?: readonly string[]
  /** Whether the service is reached over HTTPS (`BASE_URL`); adds Strict-Transport-Security. */
  https?: boolean
}

/**
 * One year, without `includeSubDomains`: the service vouches for its own host only, since other
 * hosts under its domain may not serve HTTPS.
 */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000'

/** The headers themselves; every answer carries the same values. */
export function securityHeaderValues(
  options: SecurityHeadersOptions = {},
): Readonly<Record<string, string>> {
  return {
    'Content-Security-Policy': contentSecurityPolicy({
      connectOrigins: options.connectOrigins ?? [],
      scriptHashes: options.scriptHashes ?? [],
    }),
    // Share links carry their key in the fragment; no Referer keeps even their path private.
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
    // Browsers ignore it over plain HTTP, and a service on http:// must not claim HTTPS.
    ...(options.https === true ? { 'Strict-Transport-Security': STRICT_TRANSPORT_SECURITY } : {}),
  }
}
