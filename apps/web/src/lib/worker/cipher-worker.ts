/**
 * A cipher worker of the transfer worker's pool (cipher-pool.ts): the protocol's message loop over
 * WebCrypto. Chromium runs each WebCrypto call on the thread that makes it, so records handed to
 * these are encrypted beside the transfer worker's other work instead of in between.
 */
import { runCipherWorker, webCryptoRecords, type CipherWorkerMessage } from '@fileshare/protocol'

interface WorkerScope {
  postMessage(message: CipherWorkerMessage, transfer: Transferable[]): void
  onmessage: ((event: MessageEvent) => void) | null
}

const scope = self as unknown as WorkerScope

runCipherWorker<CryptoKey>(
  {
    postMessage: (message, transfer) => scope.postMessage(message, transfer),
    listen: (listener) => (scope.onmessage = ({ data }) => listener(data)),
  },
  webCryptoRecords,
)
