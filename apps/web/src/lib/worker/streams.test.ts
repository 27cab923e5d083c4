import { ApiError, ProtocolError, DECRYPT_FAILED_MESSAGE } from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import { isSerializedError, reviveError, serializeError } from './messages'
import { observeStream, portToStream, streamToPort, withSerializedErrors } from './streams'

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
})
