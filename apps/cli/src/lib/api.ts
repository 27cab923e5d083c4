/**
 * The ApiClient of the protocol package, set up for Node: WebSocket uploads through the `ws`
 * package (no compression: ciphertext does not compress) and the stored login of the server.
 */
import {
  ApiClient,
  ApiError,
  isProtocolError,
  ProtocolError,
  type ConfigResponse,
  type WebSocketFactory,
} from '@fileshare/protocol'

import type { Credentials } from './credentials.js'
import { fetchChunk, isChunkRequest } from './chunk-fetch.js'
import { NotFileshareServerError } from './errors.js'
import { releaseBuffer } from './record-buffers.js'
import { resolveServer, SERVER_ENV, type ServerChoice } from './server.js'
import { fetchRecords, isDownloadRequest } from './record-fetch.js'
import { followTrustedRedirects } from './redirects.js'

/**
 * The frame mask of every message: all zeros. Masking (RFC 6455, 10.3) keeps a script in a
 * browser from steering the bytes a proxy sees; this client is no browser, and what it sends is
 * ciphertext and fixed control frames. A zero mask is still a mask to the protocol, and both this
 * client's `ws` and the server's skip the pass over every payload byte that another would cost.
 */
function zeroMask(mask: Buffer): void {
  mask.fill(0)
}

/**
 * Opens upload sockets with the `ws` client, loaded only by commands that upload (it is a large
 * part of start-up time). The login guard reads the upgrade request (spec: Optional login 1), so
 * the session token rides on it as `Authorization: Bearer`, as the browser's cookie would.
 */
export async function nodeWebSocket(bearerToken?: string): Promise<WebSocketFactory> {
  const { RecordSocket } = await import('./record-socket.js')
  const headers = bearerToken ? { Authorization: `Bearer ${bearerToken}` } : undefined
  return (url) =>
    new RecordSocket(url, {
      perMessageDeflate: false,
      generateMask: zeroMask,
      // The upgrade carries the login token: a redirect fails it, and the upload falls back to
      // chunked HTTP, whose redirects redirects.ts rules on.
      followRedirects: false,
      ...(headers ? { headers } : {}),
    })
}

export interface ApiSetup {
  /** Session token sent as `Authorization: Bearer`. */
  bearerToken?: string | undefined
  /** Opens upload sockets; without it uploads use chunked HTTP only. */
  webSocket?: WebSocketFactory | undefined
}

/** How undici and the OS report a connection the server had already closed. */
const STALE_CONNECTION_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE'])

/**
 * `fetch` that sends a request once more when its connection turned out to be closed. The
 * Argon2id of a password runs on the main thread for seconds, during which the pool cannot retire
 * keep-alive connections the server closes; the next request may go out on one and fail before
 * any answer, as browsers know too (they retry such requests on a reused connection). Bodies here
 * are bytes or strings, so a request can be sent again.
 */
export const retryingFetch: typeof fetch = async (input, init) => {
  // Downloads take node:http, whose body comes as whole records (record-fetch.ts), and so do
  // chunks, which it sends without a copy (chunk-fetch.ts).
  const send: typeof fetch = isDownloadRequest(input, init)
    ? (url, options) => fetchRecords(url as string | URL, options)
    : isChunkRequest(input, init)
      ? (url, options) => fetchChunk(url as string | URL, options ?? {})
      : fetch
  try {
    return await send(input, init)
  } catch (error) {
    const failure = error as { code?: unknown; cause?: { code?: unknown } }
    const code = failure.cause?.code ?? failure.code
    const replayable = !(init?.body instanceof ReadableStream)
    if (init?.signal?.aborted || !replayable || !STALE_CONNECTION_CODES.has(code as string)) {
      throw error
    }
    return send(input, init)
  }
}

export function createApi(baseUrl: string, setup: ApiSetup = {}): ApiClient {
  return new ApiClient({
    baseUrl,
    fetch: followTrustedRedirects(retryingFetch),
    // The chunked transport gives back the sealed records it has copied into a chunk.
    releaseCiphertext: releaseBuffer,
    ...(setup.bearerToken ? { bearerToken: setup.bearerToken } : {}),
    ...(setup.webSocket ? { webSocket: setup.webSocket } : {}),
  })
}

/**
 * A client for `baseUrl` carrying its login, if there is one, on HTTP and sockets: the API token
 * of `FILESHARE_TOKEN`, else the stored session or token.
 */
export async function createSignedInApi(
  baseUrl: string,
  ctx: { credentials: Credentials; env: NodeJS.ProcessEnv },
  o: { webSocket?: boolean } = {},
): Promise<ApiClient> {
  const token = await ctx.credentials.tokenFor(baseUrl, ctx.env)
  return createApi(baseUrl, {
    bearerToken: token,
    webSocket: o.webSocket === true ? await nodeWebSocket(token) : undefined,
  })
}

/**
 * What a creating command starts from: the server (`--server`, else the defaults of
 * `resolveServer`), a client signed in to it when this machine has a login, and its config.
 */
export async function openSignedInServer(
  server: string | undefined,
  ctx: { credentials: Credentials; env: NodeJS.ProcessEnv },
  o: { webSocket?: boolean } = {},
): Promise<{ baseUrl: string; api: ApiClient; config: ConfigResponse }> {
  const choice = await resolveServer(server, ctx.env)
  const api = await createSignedInApi(choice.baseUrl, ctx, o)
  try {
    return { baseUrl: choice.baseUrl, api, config: await serverConfig(api) }
  } catch (error) {
    throw isProtocolError(error, 'NETWORK') ? unreachable(error, choice) : error
  }
}

const SOURCE_NAMES: Readonly<Record<ServerChoice['source'], string>> = {
  option: '--server',
  environment: SERVER_ENV,
  'config file': '"server" in config.json',
  default: 'the default',
}

/** A server that did not answer, with where its address came from and how to name another. */
function unreachable(error: ProtocolError, choice: ServerChoice): ProtocolError {
  return new ProtocolError(
    'NETWORK',
    `${error.message} (${choice.baseUrl}, ${SOURCE_NAMES[choice.source]}); ` +
      `name the server with --server <url> or ${SERVER_ENV}`,
    { cause: error },
  )
}

/**
 * `GET /api/config`, with a server that is not fileshare named as such instead of its bare status:
 * an answer without fileshare's JSON error body, a 404, or a body that is not JSON.
 */
export async function serverConfig(api: ApiClient): Promise<ConfigResponse> {
  try {
    return await api.config()
  } catch (error) {
    if (
      error instanceof ApiError &&
      (error.status === 404 || error.message === `HTTP ${error.status}`)
    ) {
      throw new NotFileshareServerError(api.baseUrl, String(error.status))
    }
    if (isProtocolError(error, 'NETWORK') && error.cause instanceof SyntaxError) {
      throw new NotFileshareServerError(api.baseUrl, 'with something that is not JSON')
    }
    throw error
  }
}
