/**
 * A `ProgressFetch` on XMLHttpRequest, the one browser API that reports a request body's bytes as
 * they leave: `fetch` says nothing until the answer. The chunked upload sends its chunks with it,
 * so its progress moves while a 10 MB chunk is on its way instead of once per answer. Requests
 * are same-origin, so the login cookie goes with them as with `credentials: 'same-origin'`.
 */
import type { ProgressFetch } from '@fileshare/protocol'

/** Statuses whose Response may not have a body. */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304])

/** The headers of `getAllResponseHeaders()`, one `name: value` per CRLF-ended line. */
export function parseResponseHeaders(text: string): Headers {
  const headers = new Headers()
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':')
    if (colon <= 0) continue
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim())
  }
  return headers
}

export const xhrFetch: ProgressFetch = (url, init, onSent) =>
  new Promise<Response>((resolve, reject) => {
    const signal = init.signal ?? undefined
    if (signal?.aborted) {
      reject(signal.reason)
      return
    }
    const xhr = new XMLHttpRequest()
    xhr.open(init.method ?? 'GET', url)
    xhr.responseType = 'arraybuffer'
    new Headers(init.headers).forEach((value, name) => xhr.setRequestHeader(name, value))
    const abort = () => xhr.abort()
    signal?.addEventListener('abort', abort, { once: true })
    const settle = () => signal?.removeEventListener('abort', abort)
    xhr.upload.onprogress = (event) => onSent(event.loaded)
    xhr.onload = () => {
      settle()
      const body = NULL_BODY_STATUSES.has(xhr.status) ? null : (xhr.response as ArrayBuffer)
      resolve(
        new Response(body, {
          status: xhr.status,
          statusText: xhr.statusText,
          headers: parseResponseHeaders(xhr.getAllResponseHeaders()),
        }),
      )
    }
    // As fetch does: a network failure is a TypeError, an abort the signal's reason.
    xhr.onerror = () => {
      settle()
      reject(new TypeError('Network request failed'))
    }
    xhr.onabort = () => {
      settle()
      reject(signal?.reason ?? new DOMException('The request was aborted', 'AbortError'))
    }
    xhr.send((init.body ?? null) as XMLHttpRequestBodyInit | null)
  })
