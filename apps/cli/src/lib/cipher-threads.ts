/**
 * How the command line starts a cipher worker: a node:worker_threads thread running the bundled
 * `cipher-worker.js`, which keeps the process running only while it starts or holds records.
 */
import type { KeyObject } from 'node:crypto'
import { getAsset, isSea } from 'node:sea'
import { Worker } from 'node:worker_threads'

import type { CipherWorkerMessage, StartCipherWorker } from '@fileshare/protocol'

/** The thread's module in the single executable (scripts/build-sea.ts), which has no files. */
export const SEA_WORKER_ASSET = 'cipher-worker.mjs'

let workerUrl: URL | undefined

/**
 * Beside the bundle; run from the sources (the unit tests), still the built one; in the single
 * executable, its asset as a data: URL (a module, so it may import Node's built-ins).
 */
function cipherWorkerUrl(): URL {
  workerUrl ??= isSea()
    ? new URL(`data:text/javascript,${encodeURIComponent(getAsset(SEA_WORKER_ASSET, 'utf8'))}`)
    : import.meta.url.endsWith('.ts')
      ? new URL('../../dist/cipher-worker.js', import.meta.url)
      : new URL('./cipher-worker.js', import.meta.url)
  return workerUrl
}

let warned = false

export const startCipherThread: StartCipherWorker<KeyObject> = (events) => {
  // No inherited flags: the thread needs none of the command's.
  const worker = new Worker(cipherWorkerUrl(), { execArgv: [] })
  let loaded = false
  worker.on('message', (data: CipherWorkerMessage) => {
    loaded = true
    events.message(data)
  })
  worker.on('messageerror', (error) => events.failure(error.message))
  worker.on('error', (error) => {
    // A thread that cannot even load its module is a broken install, not a passing failure: the
    // command still works (on this thread), but says so once.
    if (!loaded && !warned) {
      warned = true
      process.emitWarning(`The cipher threads did not start (${error.message}); using one thread`)
    }
    events.failure(error.message)
  })
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
