/** The messages between the record cipher pool and each of its cipher workers. */

export type CipherOp = 'seal' | 'open'

/** One record to seal or open; `record` arrives in a buffer of its own (transferred). */
export interface CipherRequest {
  id: number
  op: CipherOp
  key: CryptoKey
  nonce: Uint8Array<ArrayBuffer>
  record: Uint8Array<ArrayBuffer>
}

/**
 * The answer to one request: the bytes, or why there are none; either way with the request's
 * record buffer, for the pool to fill with a later record. Both buffers are transferred.
 */
export type CipherAnswer = { id: number; spare: ArrayBuffer } & (
  { bytes: Uint8Array } | { error: string }
)
