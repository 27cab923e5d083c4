/**
 * The message loop of a cipher worker: each app's worker entry calls `runCipherWorker` with its
 * end of the channel and its cipher (WebCrypto in the browser, node:crypto in Node).
 */
import type {
  CipherAnswer,
  CipherOp,
  CipherRequest,
  CipherWorkerMessage,
} from './cipher-messages.js'

/** A record cipher as a worker runs it: it may write its output over the record's own buffer. */
export interface WorkerRecordCipher<K> {
  /** The ciphertext with its 16-byte tag. */
  seal(key: K, nonce: Uint8Array, record: Uint8Array): Uint8Array | Promise<Uint8Array>
  /** The plaintext; throws (or rejects) when the record does not authenticate. */
  open(key: K, nonce: Uint8Array, record: Uint8Array): Uint8Array | Promise<Uint8Array>
}

/** The worker's side of its channel to the pool (`parentPort` in Node, `self` in a browser). */
export interface CipherWorkerPort<K> {
  postMessage(message: CipherWorkerMessage, transfer: ArrayBuffer[]): void
  /** Calls `listener` with every request the pool sends. */
  listen(listener: (request: CipherRequest<K>) => void): void
}

async function answer<K>(
  cipher: WorkerRecordCipher<K>,
  { id, op, key, nonce, record }: CipherRequest<K>,
): Promise<{ message: CipherAnswer; transfer: ArrayBuffer[] }> {
  const input = record.buffer as ArrayBuffer
  try {
    const bytes = await cipher[op satisfies CipherOp](key, nonce, record)
    const output = bytes.buffer as ArrayBuffer
    if (output === input) return { message: { id, bytes }, transfer: [output] }
    return { message: { id, bytes, spare: input }, transfer: [output, input] }
  } catch (error) {
    // A record that does not authenticate: only the failure's name goes back, never any bytes.
    const name = error instanceof Error ? error.name : 'Error'
    return { message: { id, error: name, spare: input }, transfer: [input] }
  }
}

/** Serves records until the worker is ended; announces itself once listening. */
export function runCipherWorker<K>(port: CipherWorkerPort<K>, cipher: WorkerRecordCipher<K>): void {
  port.listen((request) => {
    void answer(cipher, request).then(({ message, transfer }) => {
      try {
        port.postMessage(message, transfer)
      } catch (error) {
        // A buffer that cannot move back (it came detached): the call still gets its answer.
        const name = error instanceof Error ? error.name : 'Error'
        port.postMessage({ id: message.id, error: name }, [])
      }
    })
  })
  port.postMessage({ ready: true }, [])
}
