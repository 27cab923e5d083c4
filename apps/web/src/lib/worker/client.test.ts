/**
 * The page's side of a download sent to a sink, against a stand-in for the module worker: the
 * call answers with its result first, and `finished` follows the worker's `end` (or its crash);
 * progress and cancellation last until then.
 */
import { DECRYPT_FAILED_MESSAGE, ProtocolError } from '@fileshare/protocol'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

import { serializeError, type CallMessage, type FromWorker, type ToWorker } from './messages'

class FakeWorker {
  static started: FakeWorker[] = []
  onmessage: ((event: { data: FromWorker }) => void) | null = null
  onerror: ((event: { message: string; preventDefault(): void }) => void) | null = null
  posted: ToWorker[] = []
  terminated = false

  constructor() {
    FakeWorker.started.push(this)
  }

  postMessage(message: ToWorker): void {
    this.posted.push(message)
  }

  terminate(): void {
    this.terminated = true
  }

  answer(data: FromWorker): void {
    this.onmessage?.({ data })
  }

  crash(message: string): void {
    this.onerror?.({ message, preventDefault: () => undefined })
  }
}

/** A download with a sink, answered with its result; its worker and call id. */
async function delivering(onProgress?: (value: unknown) => void, signal?: AbortSignal) {
  const { downloadFile } = await import('./client')
  const channel = new MessageChannel()
  const answer = downloadFile('handle-1', {
    sink: channel.port2,
    ...(onProgress ? { onProgress } : {}),
    ...(signal ? { signal } : {}),
  })
  const worker = FakeWorker.started.at(-1)!
  const call = worker.posted.at(-1) as CallMessage
  expect(call).toMatchObject({ type: 'call', method: 'downloadFile', args: ['handle-1'] })
  expect(call.sink).toBe(channel.port2)
  worker.answer({ type: 'result', id: call.id, value: { plainSize: 5, fileCount: 1 } })
  const download = await answer
  expect(download).toMatchObject({ plainSize: 5, fileCount: 1 })
  expect('stream' in download).toBe(false)
  channel.port1.close()
  return { worker, id: call.id, finished: download.finished }
}

describe('a download sent to a sink', () => {
  beforeEach(() => {
    vi.resetModules()
    FakeWorker.started = []
    vi.stubGlobal('Worker', FakeWorker)
  })
  afterEach(() => {
    vi.unstubAllGlobals()
  })

  it('rejects `finished` with the revived error of an `end` that carries one', async () => {
    const { worker, id, finished } = await delivering()
    const tampered = new ProtocolError('DECRYPT_FAILED', DECRYPT_FAILED_MESSAGE)
    worker.answer({ type: 'end', id, error: structuredClone(serializeError(tampered)) })
    const error = await finished.catch((e: unknown) => e)
    // The client was loaded afresh, with its own copy of the core's classes.
    const core = await import('@fileshare/protocol')
    expect(error).toBeInstanceOf(core.ProtocolError)
    expect(error).toMatchObject({ code: 'DECRYPT_FAILED', message: DECRYPT_FAILED_MESSAGE })
  })

  it('resolves `finished` on an `end` without error, passing progress on until then', async () => {
    const seen: unknown[] = []
    const { worker, id, finished } = await delivering((value) => seen.push(value))
    worker.answer({ type: 'progress', id, value: { receivedBytes: 3, totalBytes: 5 } })
    worker.answer({ type: 'end', id })
    await expect(finished).resolves.toBeUndefined()
    // The call is forgotten at its end: later progress goes nowhere.
    worker.answer({ type: 'progress', id, value: { receivedBytes: 5, totalBytes: 5 } })
    expect(seen).toEqual([{ receivedBytes: 3, totalBytes: 5 }])
  })

  it('rejects `finished` when the worker crashes while the plaintext is on its way', async () => {
    const { worker, finished } = await delivering()
    worker.crash('worker script failed')
    await expect(finished).rejects.toThrow('worker script failed')
    expect(worker.terminated).toBe(true)
  })

  it('still sends an abort after the result, and none after the end', async () => {
    const controller = new AbortController()
    const { worker, id, finished } = await delivering(undefined, controller.signal)
    controller.abort()
    expect(worker.posted.at(-1)?.type).toBe('abort')
    expect(worker.posted.at(-1)).toEqual({ type: 'abort', id })

    worker.answer({ type: 'end', id, error: serializeError(new DOMException('x', 'AbortError')) })
    expect(await finished.catch((e: { name?: unknown }) => e.name)).toBe('AbortError')

    const later = new AbortController()
    const second = await delivering(undefined, later.signal)
    second.worker.answer({ type: 'end', id: second.id })
    await second.finished
    const count = second.worker.posted.length
    later.abort()
    expect(second.worker.posted).toHaveLength(count)
  })
})
