/**
 * What the client-core suites share: an ApiClient on a test server (with or without an upload
 * socket), sources of known bytes, a drain for plaintext streams, and a wait for the server to
 * have discarded everything of a cancelled upload.
 */
import { randomBytes } from 'node:crypto'

import {
  ApiClient,
  bytesSource,
  type ApiOptions,
  type FileMetadata,
  type PayloadSource,
  type WebSocketFactory,
} from '@fileshare/protocol'
import { expect } from 'vitest'
import WebSocket, { type ClientOptions } from 'ws'

import { blobFiles } from './backends.js'
import type { TestServer } from './harness.js'

export const MiB = 1024 * 1024

/** The command line's factory: the `ws` client, which sends no Origin. */
export function wsFactory(options: ClientOptions = {}): WebSocketFactory {
  return (url) => new WebSocket(url, options)
}

/** Every request the client made, for tests about which transport or route was used. */
export interface FetchLog {
  calls: { method: string; url: string; headers: Headers; credentials?: RequestCredentials }[]
  fetch: typeof fetch
}

export function loggingFetch(): FetchLog {
  const calls: FetchLog['calls'] = []
  return {
    calls,
    fetch: (input, init) => {
      const url = input instanceof Request ? input.url : String(input)
      const call: FetchLog['calls'][number] = {
        method: init?.method ?? 'GET',
        url,
        headers: new Headers(init?.headers),
      }
      if (init?.credentials) call.credentials = init.credentials
      calls.push(call)
      return fetch(input, init)
    },
  }
}

export function apiFor(
  server: Pick<TestServer, 'url'>,
  options: Partial<ApiOptions> = {},
): ApiClient {
  return new ApiClient({ baseUrl: server.url, ...options })
}

export function randomSource(size: number): { bytes: Uint8Array; source: PayloadSource } {
  const bytes = new Uint8Array(randomBytes(size))
  return { bytes, source: bytesSource(bytes) }
}

export function singleFile(name: string, size: number, type = 'application/octet-stream') {
  return { archive: false, files: [{ name, type, size }] } satisfies FileMetadata
}

export async function drain(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = []
  const reader = stream.getReader()
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    parts.push(value)
  }
  return Buffer.concat(parts)
}

/** Waits until the server holds no blob at all, committed or partial. */
export async function expectNoBlobs(server: TestServer): Promise<void> {
  await expect
    .poll(async () => blobFiles(server), { timeout: 5000, interval: 50 })
    .toEqual({ committed: [], partial: [] })
}
