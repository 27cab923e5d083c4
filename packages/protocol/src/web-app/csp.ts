/**
 * The web app's Content-Security-Policy: one function for the server that sends it and for the
 * build that records it in the integrity manifest (`default_csp`), so the two cannot drift. It
 * stays within what a WEBCAT manifest accepts: no inline script but by hash, no eval, workers and
 * scripts from this origin only.
 */

export interface ContentSecurityPolicyOptions {
  /** Origins the app may fetch from besides its own (an S3 endpoint serving presigned downloads). */
  connectOrigins?: readonly string[]
  /** `'sha256-…'` sources of the inline elements the built index.html carries (its import map). */
  scriptHashes?: readonly string[]
}

export function contentSecurityPolicy(options: ContentSecurityPolicyOptions = {}): string {
  const hashes = (options.scriptHashes ?? []).map((hash) => `'${hash}'`)
  return [
    "default-src 'self'",
    // Argon2 runs in WebAssembly, which needs 'wasm-unsafe-eval' but no JavaScript eval.
    ['script-src', "'self'", "'wasm-unsafe-eval'", ...hashes].join(' '),
    "style-src 'self'",
    // QR codes are data: URLs and previews of local files are blob: URLs.
    "img-src 'self' data: blob:",
    "font-src 'self'",
    // The service worker's saves go through a frame of this origin; a PDF preview is a blob: URL
    // the browser's own viewer shows (docs/web.md, Previews).
    "frame-src 'self' blob:",
    ['connect-src', "'self'", ...(options.connectOrigins ?? [])].join(' '),
    "worker-src 'self'",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/** A policy's directives, by lowercase name, each with its sources in order. */
export function cspDirectives(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0] !== '')
      .map(([name, ...sources]) => [name!.toLowerCase(), sources]),
  )
}

/** The `'sha256-…'` sources a policy's script-src allows, as the manifest's policy names them. */
export function scriptHashesOf(policy: string): string[] {
  return (cspDirectives(policy).get('script-src') ?? [])
    .filter((word) => /^'sha(256|384|512)-[A-Za-z0-9+/=]+'$/.test(word))
    .map((word) => word.slice(1, -1))
}
