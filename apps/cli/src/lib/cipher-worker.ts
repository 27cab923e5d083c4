/**
 * The entry of a cipher thread, bundled as `dist/cipher-worker.js`: the protocol's message loop
 * over node:crypto, each output written over the record's own buffer, which goes back by transfer.
 */
import type { KeyObject } from 'node:crypto'
import { parentPort } from 'node:worker_threads'

import { runCipherWorker, type CipherRequest } from '@fileshare/protocol'

import { openRecord, ownBuffer, sealRecord } from './node-gcm.js'

const port = parentPort!
runCipherWorker<KeyObject>(
  {
    postMessage: (message, transfer) => port.postMessage(message, transfer),
    listen: (listener) =>
      port.on('message', (request: CipherRequest<KeyObject>) => listener(request)),
  },
  {
    seal: (key, nonce, record) => sealRecord(key, nonce, record, ownBuffer(record)),
    open: (key, nonce, record) => openRecord(key, nonce, record, ownBuffer(record)),
  },
)
