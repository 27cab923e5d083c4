/** The hand-over of a chunk body to the store: order, no copies, backpressure, failure and end. */
import { describe, expect, it } from 'vitest'

import { ChunkFeed } from './chunk-feed.js'

async function readAll(feed: ChunkFeed): Promise<Uint8Array[]> {
  const pieces: Uint8Array[] = []
  for await (const piece of feed) pieces.push(piece)
  return pieces
}

describe('ChunkFeed', () => {
  it('hands the pieces over in order, as the same objects, and ends after the last', async () => {
    const feed = new ChunkFeed(1024)
    const pieces = [new Uint8Array(10), new Uint8Array(20), new Uint8Array(30)]
    const reading = readAll(feed)
    for (const piece of pieces) feed.write(piece)
    feed.end()
    const read = await reading
    expect(read).toHaveLength(3)
    read.forEach((piece, i) => expect(piece).toBe(pieces[i]))
  })

  it('asks the writer to wait once it holds its bytes, until the reader takes them', async () => {
    const feed = new ChunkFeed(100)
    expect(feed.write(new Uint8Array(60))).toBe(true)
    expect(feed.write(new Uint8Array(60))).toBe(false)
    let drained = false
    const waiting = feed.drained().then(() => (drained = true))
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(drained).toBe(false)
    const reader = feed[Symbol.asyncIterator]()
    await reader.next()
    await waiting
    expect(drained).toBe(true)
    // Below its limit again, it takes pieces without a wait.
    expect(feed.write(new Uint8Array(30))).toBe(true)
    await expect(feed.drained()).resolves.toBeUndefined()
  })

  it('fails the reader when destroyed, whether it waits or has pieces queued, and frees a waiting writer', async () => {
    const waitingReader = new ChunkFeed(100)
    const read = readAll(waitingReader)
    waitingReader.write(new Uint8Array(10))
    await new Promise((resolve) => setTimeout(resolve, 0))
    waitingReader.destroy(new Error('cut off'))
    await expect(read).rejects.toThrow('cut off')

    const queued = new ChunkFeed(10)
    expect(queued.write(new Uint8Array(20))).toBe(false)
    const writerWait = queued.drained()
    queued.destroy(new Error('cut off'))
    await expect(writerWait).resolves.toBeUndefined()
    await expect(readAll(queued)).rejects.toThrow('cut off')
    expect(() => queued.write(new Uint8Array(1))).toThrow('closed')
  })

  it('keeps the end once ended: a later destroy does not fail the pieces already queued', async () => {
    const feed = new ChunkFeed(100)
    feed.write(new Uint8Array(5))
    feed.end()
    feed.destroy(new Error('request closed after its body'))
    expect((await readAll(feed)).map((piece) => piece.length)).toEqual([5])
  })
})
