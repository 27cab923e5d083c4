/**
 * Record-sized buffers used again and again on the way between disk, cipher and socket. A fresh
 * MiB per record and direction costs more than the cipher itself: first-touch page faults and
 * garbage collections driven by external memory. A buffer is reused only once whoever holds it
 * last (the socket, the disk) is done with it, and it is moved to a cipher thread only when the
 * bytes handed on are the whole of it, so that no other view can still read it afterwards.
 */
import { RECORD_SIZE, RECORD_TAG_SIZE } from '@fileshare/protocol'

/** Room for one sealed record: a plaintext record grows by its tag in place. */
export const RECORD_BUFFER_BYTES = RECORD_SIZE + RECORD_TAG_SIZE
/** Free buffers kept; more in flight at once are allocated, and dropped when they come back. */
const MAX_FREE = 24

const free: ArrayBuffer[] = []
/** Buffers that belong to this module (the only ones ever put on the free list). */
const owned = new WeakSet<ArrayBuffer>()
/**
 * Buffers handed on whole, with the byte count handed on: one of them may be moved to another
 * thread by whoever receives exactly those bytes at offset 0.
 */
const handedOn = new WeakMap<ArrayBuffer, number>()

/** A buffer of RECORD_BUFFER_BYTES, not zeroed: only bytes written into it are ever read. */
export function acquireBuffer(): ArrayBuffer {
  const reused = free.pop()
  if (reused !== undefined) return reused
  const buffer = Buffer.allocUnsafeSlow(RECORD_BUFFER_BYTES).buffer as ArrayBuffer
  owned.add(buffer)
  return buffer
}

/** Marks the first `length` bytes of an owned buffer as handed on; returns the view to pass. */
export function handOn(buffer: ArrayBuffer, length: number): Uint8Array<ArrayBuffer> {
  if (owned.has(buffer)) handedOn.set(buffer, length)
  return new Uint8Array(buffer, 0, length)
}

/**
 * The buffer behind `view` when `view` is exactly what was handed on (so nothing else refers to
 * those bytes) and the buffer has `room` bytes more after them; it is then no longer handed on.
 */
export function takeHandedOn(view: Uint8Array, room: number): ArrayBuffer | undefined {
  if (!isHandedOn(view) || view.buffer.byteLength < view.byteLength + room) return undefined
  const buffer = view.buffer as ArrayBuffer
  handedOn.delete(buffer)
  return buffer
}

/** Whether `view` is what was handed on of one of these buffers (to be released once used). */
export function isHandedOn(view: Uint8Array): boolean {
  const buffer = view.buffer
  return (
    buffer instanceof ArrayBuffer &&
    view.byteOffset === 0 &&
    handedOn.get(buffer) === view.byteLength
  )
}

/**
 * Gives back the buffer of a view that was handed on, once its last reader is done; any other
 * view is left alone (it is collected as usual). A buffer is released at most once.
 */
export function releaseBuffer(view: Uint8Array): void {
  if (!isHandedOn(view)) return
  const buffer = view.buffer as ArrayBuffer
  handedOn.delete(buffer)
  if (buffer.byteLength === RECORD_BUFFER_BYTES && free.length < MAX_FREE) free.push(buffer)
}

/** Registers a buffer that came back from another thread as one of these (a transfer makes a new object). */
export function adoptBuffer(buffer: ArrayBuffer): void {
  owned.add(buffer)
}

/** Free buffers held now (for tests). */
export function freeBufferCount(): number {
  return free.length
}
