/**
 * A cipher worker: seals and opens single records for the transfer worker's pool
 * (cipher-pool.ts). Chromium runs each WebCrypto call on the thread that makes it, so records
 * handed to several of these are encrypted side by side instead of one after another.
 */
import type { CipherAnswer, CipherRequest } from './cipher-messages'

interface WorkerScope {
  postMessage(message: CipherAnswer, transfer: Transferable[]): void
  onmessage: ((event: MessageEvent<CipherRequest>) => void) | null
}

const scope = self as unknown as WorkerScope

scope.onmessage = async ({ data }) => {
  const { id, op, key, nonce, record } = data
  // WebCrypto copies its input when called, so the record's buffer is free to go back at once.
  const spare = record.buffer
  try {
    const params = { name: 'AES-GCM', iv: nonce }
    const done =
      op === 'seal'
        ? await crypto.subtle.encrypt(params, key, record)
        : await crypto.subtle.decrypt(params, key, record)
    scope.postMessage({ id, bytes: new Uint8Array(done), spare }, [done, spare])
  } catch (error) {
    // A record that does not authenticate is an OperationError; only its name matters upstream.
    const name = error instanceof Error ? error.name : 'Error'
    scope.postMessage({ id, error: name, spare }, [spare])
  }
}
