/**
 * Browser hardening headers on every answer: API, static files, 404 and 500 alike. The service's
 * HTTP server puts them on each response before the app runs (listen.ts). The policy fits the
 * Vite-built web app (scripts, styles and workers from this origin, Argon2 in WebAssembly) and
 * allows nothing from other hosts unless the caller names them.
 */

export interface SecurityHeadersOptions {
  /**
   * Origins the web app may fetch from besides its own; the S3 backend needs its endpoint here,
   * as downloads fetch the blob from a presigned URL (spec: What the service does, 7).
   */
  connectOrigins?: readonly string[]
  /** Whether the service is reached over HTTPS (`BASE_URL`); adds Strict-Transport-Security. */
  https?: boolean
}

/**
 * One year, without `includeSubDomains`: the service vouches for its own host only, since other
 * hosts under its domain may not serve HTTPS.
 */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000'

export function contentSecurityPolicy(connectOrigins: readonly string[] = []): string {
  return [
    "default-src 'self'",
    // Argon2 runs in WebAssembly, which needs 'wasm-unsafe-eval' but no JavaScript eval.
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self'",
    // QR codes are data: URLs and previews of local files are blob: URLs.
    "img-src 'self' data: blob:",
    "font-src 'self'",
    ['connect-src', "'self'", ...connectOrigins].join(' '),
    "worker-src 'self' blob:",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/** The headers themselves; every answer carries the same values. */
export function securityHeaderValues(
  options: SecurityHeadersOptions = {},
): Readonly<Record<string, string>> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(options.connectOrigins),
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
