/**
 * `public/sw.js` is served as written, with no build, so it holds its own copy of `portToStream`
 * (worker/streams.ts). These tests run that copy against the real `streamToPort` over a real
 * MessageChannel, so the two ends cannot drift apart unnoticed.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import vm from 'node:vm'

import { DECRYPT_FAILED_MESSAGE, ProtocolError } from '@fileshare/protocol'
import { describe, expect, it } from 'vitest'

import { PORT_WINDOW, streamToPort } from '../worker/streams'

const SW_PATH = fileURLToPath(new URL('../../../public/sw.js', import.meta.url))

/** The service worker's script run in a sandbox whose `self` only takes listeners. */
function loadServiceWorker(): { portToStream: (port: MessagePort) => ReadableStream<Uint8Array> } {
  const listeners: string[] = []
  const context = vm.createContext({
    self: {
      addEventListener: (type: string) => listeners.push(type),
      skipWaiting: () => undefined,
      clients: { claim: () => Promise.resolve() },
      location: { origin: 'https://fileshare.test' },
    },
    ReadableStream,
    MessagePort,
    Response,
    Headers,
    URL,
    setTimeout,
    String,
    Number,
  })
  vm.runInContext(readFileSync(SW_PATH, 'utf8'), context, { filename: SW_PATH })
  expect(listeners).toEqual(expect.arrayContaining(['message', 'fetch']))
  expect(vm.runInContext('PORT_WINDOW', context)).toBe(PORT_WINDOW)
  return context as unknown as ReturnType<typeof loadServiceWorker>
}

/** `port`, counting the pulls sent through it (synchronously, as they are posted). */
function countingPulls(port: MessagePort) {
  const counter = { pulls: 0, port: port as MessagePort }
  counter.port = {
    set onmessage(handler: ((event: MessageEvent) => void) | null) {
      port.onmessage = handler
    },
    postMessage(message: { type?: string }) {
      if (message.type === 'pull') counter.pulls++
      port.postMessage(message)
    },
    close: () => port.close(),
  } as unknown as MessagePort
  return counter
}

function numbered(count: number, failWith?: unknown) {
  const source = { pulled: 0, cancelled: undefined as unknown, stream: undefined as never }
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (source.pulled < count) controller.enqueue(new Uint8Array([source.pulled++]))
        else if (failWith) controller.error(failWith)
        else controller.close()
      },
      cancel: (reason) => void (source.cancelled = reason),
    },
    { highWaterMark: 0 },
  )
  return { source, stream }
}

/** A promise of the error streamToPort's `onEnd` was told, undefined for a whole stream. */
function endOf(): { onEnd: (error?: unknown) => void; ended: Promise<unknown> } {
  let onEnd!: (error?: unknown) => void
  const ended = new Promise<unknown>((resolve) => (onEnd = resolve))
  return { onEnd, ended }
}

describe("public/sw.js's portToStream against streamToPort", () => {
  const { portToStream } = loadServiceWorker()

  it('asks PORT_WINDOW chunks ahead, one more per chunk taken, and gets them in order', async () => {
    const { source, stream } = numbered(PORT_WINDOW + 3)
    const channel = new MessageChannel()
    const { onEnd, ended } = endOf()
    streamToPort(stream, channel.port1, onEnd)
    const counter = countingPulls(channel.port2)
    const reader = portToStream(counter.port).getReader()
    expect(counter.pulls).toBe(PORT_WINDOW)

    const first = await reader.read()
    expect([...first.value!]).toEqual([0])
    expect(counter.pulls).toBe(PORT_WINDOW + 1)
    // The writer has served every pull it was sent up to the first chunk, and never more.
    expect(source.pulled).toBeGreaterThanOrEqual(1)
    expect(source.pulled).toBeLessThanOrEqual(PORT_WINDOW + 1)

    const rest: number[] = []
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      rest.push(...value)
    }
    expect(rest).toEqual([1, 2, 3, 4, 5, 6])
    await expect(ended).resolves.toBeUndefined()
    expect(source.pulled).toBe(PORT_WINDOW + 3)
  })

  it("errors with the writer's error message, and the writer hears the failure", async () => {
    const tampered = new ProtocolError('DECRYPT_FAILED', DECRYPT_FAILED_MESSAGE)
    const { stream } = numbered(2, tampered)
    const channel = new MessageChannel()
    const { onEnd, ended } = endOf()
    streamToPort(stream, channel.port1, onEnd)
    const reader = portToStream(channel.port2).getReader()
    expect([...(await reader.read()).value!]).toEqual([0])
    expect([...(await reader.read()).value!]).toEqual([1])
    const error = await reader.read().catch((e: unknown) => e)
    // An Error of the sandbox's realm, so compared by its fields.
    expect(error).toMatchObject({ name: 'Error', message: DECRYPT_FAILED_MESSAGE })
    await expect(ended).resolves.toBe(tampered)
  })

  it('passes a cancel back to the source, and the writer hears an AbortError', async () => {
    const { source, stream } = numbered(1_000)
    const channel = new MessageChannel()
    const { onEnd, ended } = endOf()
    streamToPort(stream, channel.port1, onEnd)
    const reader = portToStream(channel.port2).getReader()
    await reader.read()
    await reader.cancel('not fetched')
    await expect(ended).resolves.toMatchObject({ name: 'AbortError' })
    await expect.poll(() => source.cancelled).toBe('not fetched')
    expect(source.pulled).toBeLessThan(1_000)
  })
})
