/**
 * How the command line starts a cipher worker: a node:worker_threads thread running the bundled
 * `cipher-worker.js`, which keeps the process running only while it starts or holds records.
 */
import type { KeyObject } from 'node:crypto'
import { Worker } from 'node:worker_threads'

import type { CipherWorkerMessage, StartCipherWorker } from '@fileshare/protocol'

/** Beside the bundle; run from the sources (the unit tests) the thread is still the built one. */
const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('../../dist/cipher-worker.js', import.meta.url)
  : new URL('./cipher-worker.js', import.meta.url)

export const startCipherThread: StartCipherWorker<KeyObject> = (events) => {
  // No inherited flags: the thread needs none of the command's.
  const worker = new Worker(WORKER_URL, { execArgv: [] })
  worker.on('message', (data: CipherWorkerMessage) => events.message(data))
  worker.on('messageerror', (error) => events.failure(error.message))
  worker.on('error', (error) => events.failure(error.message))
  worker.on('exit', (code) => events.failure(`exit code ${code}`))
  // A thread keeps the command running while it starts and while it holds records, never idle.
  // After the listeners: adding a 'message' listener holds the thread's port open again.
  let busy = false
  worker.once('message', () => busy || worker.unref())
  return {
    post: (request, transfer) => worker.postMessage(request, transfer),
    terminate: () => worker.terminate(),
    hold: (holding) => {
      busy = holding
      if (holding) worker.ref()
      else worker.unref()
    },
  }
}
