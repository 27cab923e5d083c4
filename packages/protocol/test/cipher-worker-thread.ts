/** A real node:worker_threads cipher worker for the pool's suite: the protocol's loop over WebCrypto. */
import { parentPort } from 'node:worker_threads'

import type { CipherRequest } from '../src/crypto/cipher-messages.js'
import { runCipherWorker } from '../src/crypto/cipher-worker.js'
import { webCryptoRecords } from '../src/crypto/stream.js'

const port = parentPort!
runCipherWorker<CryptoKey>(
  {
    postMessage: (message, transfer) => port.postMessage(message, transfer),
    listen: (listener) =>
      port.on('message', (request: CipherRequest<CryptoKey>) => listener(request)),
  },
  webCryptoRecords,
)
