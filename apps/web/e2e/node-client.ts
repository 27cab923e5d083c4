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

/** A share of the given bytes rather than pseudo-random ones. */
export type NodeBytesShare = Omit<NodeShare, 'size' | 'seed'> & {
  bytes: Uint8Array
  /** Sent as an archive of this many files (the bytes stand for its ZIP). */
  archiveOf?: number
}

/** Uploads `share.bytes` as one file (or as an archive) from Node. */
export function shareBytesFromNode(baseUrl: string, share: NodeBytesShare): Promise<SentFile> {
  const { bytes } = share
  const source: PayloadSource = {
    size: bytes.length,
    stream: () => new Blob([bytes as Uint8Array<ArrayBuffer>]).stream(),
  }
  return sendFromNode(baseUrl, source, { ...share, size: bytes.length })
}

/** Uploads the file at `path` from Node, as `shareFromNode` does. */
export async function shareFileFromNode(
  baseUrl: string,
  path: string,
  share: Omit<NodeShare, 'size' | 'seed'>,
): Promise<SentFile> {
  const blob = await openAsBlob(path)
  return sendFromNode(baseUrl, blob, { ...share, size: blob.size })
}

async function sendFromNode(
  baseUrl: string,
  source: PayloadSource,
  share: Omit<NodeShare, 'seed'> & { archiveOf?: number },
): Promise<SentFile> {
  const api = nodeApi(baseUrl)
  const config = await api.config()
  const { size, name } = share
  const archiveOf = share.archiveOf ?? 0
  const type = share.type ?? 'application/octet-stream'
  return sendFile(api, source, {
    expireSec: config.defaultExpire,
    maxDownloads: share.maxDownloads ?? 5,
    metadata:
      archiveOf > 1
        ? {
            archive: true,
            files: Array.from({ length: archiveOf }, (_, i) => ({
              name: `${i}-${name}`,
              type,
              size,
            })),
          }
        : { archive: false, files: [{ name, type, size }] },
    fileCount: Math.max(1, archiveOf),
    ...(share.password ? { password: share.password } : {}),
  })
}
