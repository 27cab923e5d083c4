/**
 * Redirects of the command line's HTTP requests. The tokens a request carries (the login's
 * `Authorization`, `X-Auth-Token`, `X-Owner-Token`, the inbox and upload tokens) belong to the
 * server the link names, so a redirect is followed only when it stays on that origin or moves
 * the same host from `http:` to `https:` on the same or default ports; any other ends the
 * request with an error and sends nothing there. A request marked `credentials: 'omit'` carries
 * no tokens (the presigned S3 URL of a download, which is another origin by design) and
 * follows redirects anywhere, as `fetch` would.
 */
import { ProtocolError } from '@fileshare/protocol'

/** As the Fetch standard's redirect limit. */
const MAX_REDIRECTS = 20
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])

/** Whether a request with credentials may follow a redirect from `from` to `to`. */
export function isTrustedRedirect(from: URL, to: URL): boolean {
  if (from.origin === to.origin) return true
  // URL leaves `port` empty for a scheme's default, so 80 → 443 compares '' with ''.
  return (
    from.protocol === 'http:' &&
    to.protocol === 'https:' &&
    from.hostname === to.hostname &&
    from.port === to.port
  )
}

/** NETWORK, as any other answer the client cannot use; the API client passes it on as it is. */
export function untrustedRedirect(to: URL): ProtocolError {
  return new ProtocolError(
    'NETWORK',
    `The server redirected to ${to.origin}; not following it with credentials`,
  )
}

/**
 * Wraps `send` (a `fetch`) so that it never follows a redirect by itself (`redirect: 'manual'`)
 * and this module decides each hop. A 303, and a 301 or 302 of a POST, continue as a bodyless GET
 * (Fetch standard, HTTP-redirect fetch, step 12); bodies here are bytes or strings, so a 307 or
 * 308 sends the same body again.
 */
export function followTrustedRedirects(send: typeof fetch): typeof fetch {
  return async (input, init = {}) => {
    let url = new URL(input instanceof Request ? input.url : input)
    let request: RequestInit = { ...init, redirect: 'manual' }
    const free = init.credentials === 'omit'
    for (let hops = 0; ; hops++) {
      const response = await send(url, request)
      const location = response.headers.get('location')
      if (!REDIRECT_STATUSES.has(response.status) || location === null) return response
      await response.body?.cancel().catch(() => undefined)
      if (hops === MAX_REDIRECTS) {
        throw new ProtocolError('NETWORK', 'The server redirected too many times')
      }
      const next = new URL(location, url)
      if (next.protocol !== 'http:' && next.protocol !== 'https:') throw untrustedRedirect(next)
      if (!free && !isTrustedRedirect(url, next)) throw untrustedRedirect(next)
      const method = (request.method ?? 'GET').toUpperCase()
      if (
        response.status === 303 ? method !== 'HEAD' : response.status <= 302 && method === 'POST'
      ) {
        const { body: _body, ...rest } = request
        request = { ...rest, method: 'GET', headers: withoutBodyHeaders(request.headers) }
      }
      url = next
    }
  }
}

/** The headers that describe a body, dropped with it (Fetch standard: request-body-header name). */
function withoutBodyHeaders(headers: HeadersInit | undefined): Headers {
  const out = new Headers(headers)
  for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language']) {
    out.delete(name)
  }
  return out
}
