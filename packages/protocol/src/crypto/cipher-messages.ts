/** The messages between a cipher pool (cipher-pool.ts) and each of its workers (cipher-worker.ts). */

export type CipherOp = 'seal' | 'open'

/**
 * One record to seal or open under `key` (a CryptoKey in the browser, a node:crypto KeyObject in
 * Node: whatever the worker's cipher takes). `record`'s buffer is the worker's from now on.
 */
export interface CipherRequest<K> {
  id: number
  op: CipherOp
  key: K
  nonce: Uint8Array
  record: Uint8Array
}

/**
 * A worker's answer: the output, or the name of the failure. `spare` is the request's buffer when
 * the output is not in it, for the pool to copy a later record into. Buffers are transferred.
 */
export type CipherAnswer = { id: number; spare?: ArrayBuffer } & (
  { bytes: Uint8Array } | { error: string }
)

/** Posted once by a worker whose message loop runs: from then on it takes records. */
export interface CipherReady {
  ready: true
}

export type CipherWorkerMessage = CipherAnswer | CipherReady
