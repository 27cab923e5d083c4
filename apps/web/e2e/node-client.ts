/**
 * The shared client core run from Node, for preparing large shares quickly (a 1 GiB upload would
 * spend most of a test in the page's file input otherwise) and for checking what a page sent.
 */
import { openAsBlob } from 'node:fs'

import {
  ApiClient,
  sendFile,
  type PayloadSource,
  type SentFile,
  type WebSocketLike,
} from '@fileshare/protocol'
import WebSocket from 'ws'

import { pseudoRandomChunks } from './files.js'

/** An API client speaking to `baseUrl` over fetch and, for uploads, the `ws` WebSocket. */
export function nodeApi(baseUrl: string): ApiClient {
  return new ApiClient({
    baseUrl,
    webSocket: (url) => new WebSocket(url) as unknown as WebSocketLike,
  })
}

/** `size` pseudo-random bytes of `seed` (the same as writePseudoRandomFile), streamed. */
export function pseudoRandomSource(size: number, seed: string): PayloadSource {
  return {
    size,
    stream() {
      const chunks = pseudoRandomChunks(size, seed)
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = chunks.next()
          if (next.done) controller.close()
          else
            controller.enqueue(
              new Uint8Array(next.value.buffer, next.value.byteOffset, next.value.length),
            )
        },
      })
    },
  }
}

export interface NodeShare {
  /** Plaintext size; the bytes are `pseudoRandomSource(size, seed)`. */
  size: number
  seed: string
  name: string
  type?: string
  maxDownloads?: number
  password?: string
}

/** Uploads one file of pseudo-random bytes from Node, expiring after the server's default. */
export function shareFromNode(baseUrl: string, share: NodeShare): Promise<SentFile> {
  return sendFromNode(baseUrl, pseudoRandomSource(share.size, share.seed), share)
}

/** Uploads the file at `path` from Node, as `shareFromNode` does. */
export async function shareFileFromNode(
  baseUrl: string,
  path: string,
  share: Omit<NodeShare, 'size' | 'seed'>,
): Promise<SentFile> {
  const blob = await openAsBlob(path)
  return sendFromNode(baseUrl, blob, { ...share, size: blob.size, seed: '' })
}

async function sendFromNode(
  baseUrl: string,
  source: PayloadSource,
  share: NodeShare,
): Promise<SentFile> {
  const api = nodeApi(baseUrl)
  const config = await api.config()
  const { size, name } = share
  return sendFile(api, source, {
    expireSec: config.defaultExpire,
    maxDownloads: share.maxDownloads ?? 5,
    metadata: {
      archive: false,
      files: [{ name, type: share.type ?? 'application/octet-stream', size }],
    },
    fileCount: 1,
    ...(share.password ? { password: share.password } : {}),
  })
}
