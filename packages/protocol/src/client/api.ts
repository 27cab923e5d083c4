/**
 * The HTTP side of every client: one place that builds URLs under the service's base address,
 * adds the login bearer token, and turns refusals into `ApiError` and unreachable servers into
 * `ProtocolError('NETWORK')`. Uses only `fetch`, so it runs in Node, pages and Web Workers.
 */
import { ProtocolError } from '../errors.js'
import type { FileRequestLimitResponse } from '../wire/requests.js'
import type { ConfigResponse } from '../wire/config.js'
import type { HealthResponse, QuotaResponse } from '../wire/system.js'
import type { SessionResponse } from '../wire/auth.js'
import { reportPath, type ReportBody } from '../wire/reports.js'
import { PATHS } from '../wire/routes.js'
import { apiErrorFromResponse } from './api-error.js'
import type { WebSocketFactory } from './web-socket.js'

/**
 * Sends a request as `fetch` does and calls `onSent` with the bytes of its body sent so far, as
 * they leave (`fetch` tells nothing until the answer; a browser's XMLHttpRequest can).
 */
export type ProgressFetch = (
  url: string,
  init: RequestInit,
  onSent: (bytes: number) => void,
) => Promise<Response>

export interface ApiOptions {
  /** The service's base address (origin plus any path prefix); a trailing slash is dropped. */
  baseUrl: string
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch
  /** Sends requests that ask for the progress of their body (chunks); else `fetch` sends them. */
  progressFetch?: ProgressFetch
  /** Session JWT of a command-line login, sent as `Authorization: Bearer`. */
  bearerToken?: string
  /** Opens upload sockets; without it uploads use chunked HTTP. */
  webSocket?: WebSocketFactory
  /** `credentials` of every request (the browser sends its login cookie with `same-origin`). */
  credentials?: RequestCredentials
  /**
   * Told of each piece of ciphertext the chunked transport has copied into a chunk and no longer
   * holds, so that a runtime which pools its record buffers can use the piece's buffer again.
   */
  releaseCiphertext?: (piece: Uint8Array) => void
}

export type ApiMethod = 'GET' | 'POST' | 'DELETE'

export interface ApiRequestInit {
  /** Extra headers (tokens, upload settings). */
  headers?: Record<string, string>
  /** A JSON body; sets `Content-Type: application/json`. */
  json?: unknown
  /** A raw body (chunks). */
  body?: Uint8Array | string
  signal?: AbortSignal
  /** Statuses answered with the Response instead of an ApiError (besides 2xx). */
  accept?: readonly number[]
  /** Told the body's bytes sent so far, when the client has a `progressFetch`. */
  onSent?: (bytes: number) => void
}

/** A failure to reach the server: `fetch` rejected, or a body broke off. */
export function networkError(cause: unknown): ProtocolError {
  const detail = innermostMessage(cause)
  return new ProtocolError('NETWORK', `Could not reach the server${detail ? `: ${detail}` : ''}`, {
    cause,
  })
}

/**
 * The message of the deepest error in a chain of causes that has one. Node's `fetch` rejects
 * with `fetch failed`, which names nothing; its cause says `connect ECONNREFUSED 127.0.0.1:3000`,
 * and when every address of a name failed, an AggregateError with no message of its own holds
 * one error per address.
 */
function innermostMessage(error: unknown): string {
  let found = ''
  for (let at = error, depth = 0; at instanceof Error && depth < 8; depth++) {
    const own =
      at instanceof AggregateError && !at.message
        ? at.errors
            .map((e: unknown) => (e instanceof Error ? e.message : ''))
            .filter((m: string) => m !== '')
            .join('; ')
        : at.message
    if (own) found = own
    at = at.cause
  }
  return found
}

export class ApiClient {
  readonly baseUrl: string
  readonly webSocket: WebSocketFactory | undefined
  private readonly fetchImpl: typeof fetch
  private readonly progressFetch: ProgressFetch | undefined
  private readonly bearerToken: string | undefined
  private readonly credentials: RequestCredentials | undefined
  readonly releaseCiphertext: ((piece: Uint8Array) => void) | undefined
  private configPromise: Promise<ConfigResponse> | undefined

  constructor(options: ApiOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    // Bound: a browser's fetch must be called with globalThis as `this`.
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
    this.progressFetch = options.progressFetch
    this.bearerToken = options.bearerToken
    this.webSocket = options.webSocket
    this.credentials = options.credentials
    this.releaseCiphertext = options.releaseCiphertext
  }

  /** `GET /api/config`, fetched once per client (a failed fetch is retried on the next call). */
  config(): Promise<ConfigResponse> {
    if (!this.configPromise) {
      this.configPromise = this.json<ConfigResponse>('GET', PATHS.config())
      this.configPromise.catch(() => (this.configPromise = undefined))
    }
    return this.configPromise
  }

  /** `GET /api/health`; an unhealthy server (503) answers its body too. */
  async health(): Promise<HealthResponse> {
    const response = await this.raw('GET', PATHS.health(), { accept: [503] })
    return (await readJson(response)) as HealthResponse
  }

  /** `GET /api/quota`: the caller's upload quota. */
  quota(): Promise<QuotaResponse> {
    return this.json<QuotaResponse>('GET', PATHS.quota())
  }

  /** `GET /auth/session`: the signed-in user, or null (401, or 404 when login is off). */
  async session(): Promise<SessionResponse | null> {
    const response = await this.raw('GET', PATHS.authSession(), { accept: [401, 404] })
    if (!response.ok) {
      await response.body?.cancel()
      return null
    }
    return (await readJson(response)) as SessionResponse
  }

  /** `GET /api/request/limit`: the daily request limit left (counts nothing). */
  requestLimit(): Promise<FileRequestLimitResponse> {
    return this.json<FileRequestLimitResponse>('GET', PATHS.requestLimit())
  }

  /**
   * `POST /api/report/:id`: reports an upload, note or request to the operator, with the link's
   * key only when the reporter includes it (docs/api.md, Abuse reports).
   */
  async report(id: string, body: ReportBody): Promise<void> {
    await this.json('POST', reportPath(id), { json: body })
  }

  /** The absolute URL of an API path. */
  url(path: string): string {
    return `${this.baseUrl}${path}`
  }

  /** The `ws:`/`wss:` URL of an API path. */
  webSocketUrl(path: string): string {
    return this.url(path).replace(/^http/, 'ws')
  }

  /** A request whose answer is JSON; refusals throw ApiError. */
  async json<T>(method: ApiMethod, path: string, init: ApiRequestInit = {}): Promise<T> {
    const response = await this.raw(method, path, init)
    return (await readJson(response, init.signal)) as T
  }

  /**
   * A request whose answer the caller reads itself. A 2xx answer (or one listed in `accept`) is
   * returned; any other throws ApiError; an unreachable server ProtocolError('NETWORK'); an
   * aborted signal rejects with the signal's reason.
   */
  async raw(method: ApiMethod, path: string, init: ApiRequestInit = {}): Promise<Response> {
    const headers: Record<string, string> = { ...init.headers }
    if (this.bearerToken) headers.Authorization = `Bearer ${this.bearerToken}`
    let body: BodyInit | undefined
    if (init.json !== undefined) {
      headers['Content-Type'] = 'application/json'
      body = JSON.stringify(init.json)
    } else if (init.body !== undefined) {
      body = init.body as BodyInit
    }
    const request: RequestInit = { method, headers }
    if (body !== undefined) request.body = body
    if (init.signal) request.signal = init.signal
    if (this.credentials) request.credentials = this.credentials
    const { onSent } = init
    let response: Response
    try {
      response =
        onSent && this.progressFetch && body !== undefined
          ? await this.progressFetch(this.url(path), request, onSent)
          : await this.fetchImpl(this.url(path), request)
    } catch (error) {
      if (init.signal?.aborted) throw init.signal.reason
      // A fetch of the client's own (the command line's redirect rule) may name the failure.
      if (error instanceof ProtocolError) throw error
      throw networkError(error)
    }
    if (response.ok || init.accept?.includes(response.status)) return response
    throw await apiErrorFromResponse(response)
  }

  /** Fetches a URL outside the API (a presigned S3 URL): no credentials, no auth headers. */
  async external(
    url: string,
    signal?: AbortSignal,
    headers?: Record<string, string>,
  ): Promise<Response> {
    const request: RequestInit = { method: 'GET', credentials: 'omit' }
    if (signal) request.signal = signal
    if (headers) request.headers = headers
    let response: Response
    try {
      response = await this.fetchImpl(url, request)
    } catch (error) {
      if (signal?.aborted) throw signal.reason
      if (error instanceof ProtocolError) throw error
      throw networkError(error)
    }
    if (response.ok) return response
    throw await apiErrorFromResponse(response)
  }
}

async function readJson(response: Response, signal?: AbortSignal): Promise<unknown> {
  let text: string
  try {
    text = await response.text()
  } catch (error) {
    if (signal?.aborted) throw signal.reason
    throw networkError(error)
  }
  try {
    return JSON.parse(text) as unknown
  } catch (cause) {
    throw new ProtocolError('NETWORK', 'The server answered with something that is not JSON', {
      cause,
    })
  }
}
