/**
 * The transfer worker's record cipher: the protocol's cipher pool over module workers running
 * cipher-worker.ts, with WebCrypto in this thread as the fallback.
 */
import {
  cipherWorkerCount,
  createCipherPool,
  webCryptoRecords,
  type CipherPool,
  type CipherWorkerMessage,
  type RecordCipher,
  type StartCipherWorker,
} from '@fileshare/protocol'

const startModuleWorker: StartCipherWorker<CryptoKey> = (events) => {
  const worker = new Worker(new URL('./cipher-worker.ts', import.meta.url), {
    type: 'module',
    name: 'fileshare-cipher',
  })
  worker.onmessage = ({ data }: MessageEvent<CipherWorkerMessage>) => events.message(data)
  // A script that fails to load or throws, or an answer that cannot be read.
  worker.onerror = (event) => {
    event.preventDefault()
    events.failure(event.message || 'The cipher worker failed')
  }
  worker.onmessageerror = () => events.failure('An answer of the cipher worker could not be read')
  return {
    post: (request, transfer) => worker.postMessage(request, transfer),
    terminate: () => worker.terminate(),
  }
}

/** The record cipher of the transfer worker's streams, whose workers `start` starts early. */
export interface WebRecordCipher extends RecordCipher {
  start(): void
}

/**
 * A pool sized for this browser's cores, its workers started on the first record or by `start`.
 * A record the stream assembled moves to a worker in the buffer it was assembled in (a buffer a
 * worker handed back), with no copy; a record that is a view of the input is copied.
 */
export function createWebCipherPool(): WebRecordCipher {
  const pool: CipherPool<CryptoKey> = createCipherPool({
    size: cipherWorkerCount(globalThis.navigator?.hardwareConcurrency ?? 2),
    startWorker: startModuleWorker,
    fallback: webCryptoRecords,
  })
  return {
    seal: (key, nonce, record, given) =>
      pool.seal(key, nonce, record, { transfer: given === true }),
    open: (key, nonce, record, given) =>
      pool.open(key, nonce, record, { transfer: given === true }),
    recordBuffer: (bytes) => pool.recordBuffer(bytes),
    start: () => pool.start(),
  }
}
