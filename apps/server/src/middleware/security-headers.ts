/**
 * Browser hardening headers on every answer, set by the HTTP server before the app runs
 * (listen.ts), with the protocol package's policy, which the web app's integrity manifest records.
 * May touch: nothing (pure).
 */
import { contentSecurityPolicy } from '@fileshare/protocol'

export interface SecurityHeadersOptions {
  /** Origins besides its own the web app fetches from: S3's, for presigned downloads. */
  connectOrigins?: readonly string[]
  /** The `'sha256-…'` sources of the hosted web app's inline import map (web-integrity.ts). */
  scriptHashes?: readonly string[]
  /** Whether `BASE_URL` is HTTPS; adds Strict-Transport-Security. */
  https?: boolean
}

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
    // Only over HTTPS, where browsers heed it. One year, without `includeSubDomains`: the service
    // vouches for its own host only, since other hosts under its domain may not serve HTTPS.
    ...(options.https === true ? { 'Strict-Transport-Security': 'max-age=31536000' } : {}),
  }
}
