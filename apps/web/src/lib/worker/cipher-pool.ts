/**
 * The transfer worker's record cipher: the protocol's cipher pool over module workers running
 * cipher-worker.ts, with WebCrypto in this thread as the fallback. Records are copied into the
 * pool's reused buffers, since the caller's may be views into buffers still in use.
 */
import {
  cipherWorkerCount,
  createCipherPool,
  webCryptoRecords,
  type CipherPool,
  type CipherWorkerMessage,
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

/** A pool sized for this browser's cores, its workers started on the first record. */
export function createWebCipherPool(): CipherPool<CryptoKey> {
  return createCipherPool({
    size: cipherWorkerCount(globalThis.navigator?.hardwareConcurrency ?? 2),
    startWorker: startModuleWorker,
    fallback: webCryptoRecords,
  })
}
