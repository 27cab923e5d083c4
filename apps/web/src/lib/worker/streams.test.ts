import { ApiError, ProtocolError, DECRYPT_FAILED_MESSAGE } from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import { isSerializedError, reviveError, serializeError } from './messages'
import {
  observeStream,
  PORT_WINDOW,
  portToStream,
  streamToPort,
  withSerializedErrors,
} from './streams'

function source(chunks: Uint8Array[], failWith?: unknown): ReadableStream<Uint8Array> {
  let i = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!)
      else if (failWith) controller.error(failWith)
      else controller.close()
    },
  })
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<number[]> {
  const out: number[] = []
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return out
    out.push(...value)
  }
}

describe('errors across the worker boundary', () => {
  it('revives ApiError with its status and Retry-After', () => {
    const revived = reviveError(
      structuredClone(serializeError(new ApiError(429, 'Too many', { retryAfterSec: 30 }))),
    )
    expect(revived).toBeInstanceOf(ApiError)
    expect((revived as ApiError).status).toBe(429)
    expect((revived as ApiError).retryAfterSec).toBe(30)
    expect(revived.message).toBe('Too many')
  })

  it('revives a takedown’s 410 as one', () => {
    const error = new ApiError(410, 'Removed by the operator', { removed: true, takedown: 'Spam' })
    const revived = reviveError(structuredClone(serializeError(error))) as ApiError
    expect([revived.status, revived.removed, revived.takedown]).toEqual([410, true, 'Spam'])
  })

  it('revives ProtocolError with its code, and aborts as AbortError', () => {
    const revived = reviveError(
      structuredClone(serializeError(new ProtocolError('WRONG_PASSWORD', 'no'))),
    )
    expect(revived).toBeInstanceOf(ProtocolError)
    expect((revived as ProtocolError).code).toBe('WRONG_PASSWORD')
    const abort = reviveError(serializeError(new DOMException('stop', 'AbortError')))
    expect(abort.name).toBe('AbortError')
  })
})

describe('streams across the boundary', () => {
  it('pumps every chunk through a MessagePort in order', async () => {
    const channel = new MessageChannel()
    streamToPort(
      source([new Uint8Array([1, 2]), new Uint8Array([3]), new Uint8Array([4, 5])]),
      channel.port1,
    )
    expect(await readAll(portToStream(channel.port2))).toEqual([1, 2, 3, 4, 5])
  })

  it('delivers an integrity failure as ProtocolError DECRYPT_FAILED, also through a port', async () => {
    const tampered = new ProtocolError('DECRYPT_FAILED', DECRYPT_FAILED_MESSAGE)
    const channel = new MessageChannel()
    streamToPort(withSerializedErrors(source([new Uint8Array([9])], tampered)), channel.port1)
    const observed = observeStream(portToStream(channel.port2))
    await expect(readAll(observed.stream)).rejects.toMatchObject({ code: 'DECRYPT_FAILED' })
    await expect(observed.finished).rejects.toBeInstanceOf(ProtocolError)

    // streamToPort serializes the error itself: the worker sends a plaintext's error unwrapped.
    const bare = new MessageChannel()
    streamToPort(source([new Uint8Array([9])], tampered), bare.port1)
    const unwrapped = observeStream(portToStream(bare.port2))
    await expect(readAll(unwrapped.stream)).rejects.toMatchObject({ code: 'DECRYPT_FAILED' })
    await expect(unwrapped.finished).rejects.toBeInstanceOf(ProtocolError)
  })

  it('serializes stream errors into cloneable objects', async () => {
    const wrapped = withSerializedErrors(source([], new ApiError(410, 'gone')))
    const error = await readAll(wrapped).catch((e: unknown) => e)
    expect(isSerializedError(error)).toBe(true)
    expect(structuredClone(error)).toMatchObject({ kind: 'api', status: 410 })
  })

  it('counts bytes and resolves `finished` at the end', async () => {
    const seen: number[] = []
    const observed = observeStream(source([new Uint8Array(3), new Uint8Array(4)]), (n) =>
      seen.push(n),
    )
    expect(await readAll(observed.stream)).toHaveLength(7)
    await expect(observed.finished).resolves.toBeUndefined()
    expect(seen).toEqual([3, 7])
  })

  it('keeps PORT_WINDOW chunks on the way ahead of a reader that does not read', async () => {
    let pulled = 0
    const counted = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulled++
          controller.enqueue(new Uint8Array(8))
        },
      },
      { highWaterMark: 0 },
    )
    const channel = new MessageChannel()
    streamToPort(counted, channel.port1)
    const reader = portToStream(channel.port2).getReader()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(pulled).toBe(PORT_WINDOW)
    await reader.read()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(pulled).toBe(PORT_WINDOW + 1)
    await reader.cancel('enough')
  })

  it('transfers chunks that own their buffer and copies views into a larger one', async () => {
    const own = new Uint8Array([1, 2, 3])
    const shared = new Uint8Array([7, 8, 9, 10])
    const channel = new MessageChannel()
    streamToPort(source([own, shared.subarray(1, 3)]), channel.port1)
    expect(await readAll(portToStream(channel.port2))).toEqual([1, 2, 3, 8, 9])
    // Moved, not copied: the sender's buffer is gone; the shared one is left as it was.
    expect(own.buffer.byteLength).toBe(0)
    expect([...shared]).toEqual([7, 8, 9, 10])
  })

  it('tells how the pumped stream ended: whole, failed, or cancelled by the reader', async () => {
    const ends: unknown[] = []
    const whole = new MessageChannel()
    streamToPort(source([new Uint8Array([1])]), whole.port1, (error) => ends.push(error))
    await readAll(portToStream(whole.port2))

    const failed = new MessageChannel()
    const tampered = new ProtocolError('DECRYPT_FAILED', DECRYPT_FAILED_MESSAGE)
    streamToPort(withSerializedErrors(source([], tampered)), failed.port1, (error) =>
      ends.push(error),
    )
    await expect(readAll(portToStream(failed.port2))).rejects.toMatchObject({
      code: 'DECRYPT_FAILED',
    })

    let cancelled: unknown
    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new Uint8Array(4)),
      cancel: (reason) => void (cancelled = reason),
    })
    const stopped = new MessageChannel()
    const stoppedEnd = new Promise<void>((resolve) =>
      streamToPort(endless, stopped.port1, (error) => {
        ends.push(error)
        resolve()
      }),
    )
    const reader = portToStream(stopped.port2).getReader()
    await reader.read()
    await reader.cancel('user stopped it')
    await stoppedEnd

    expect(ends).toHaveLength(3)
    expect(ends[0]).toBeUndefined()
    expect(ends[1]).toMatchObject({ kind: 'protocol', code: 'DECRYPT_FAILED' })
    expect(ends[2]).toMatchObject({ name: 'AbortError' })
    expect(cancelled).toBe('user stopped it')
  })
})
