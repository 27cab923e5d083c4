/** The hand-over of a chunk body to the store: order, no copies, backpressure, failure and end. */
import { describe, expect, it } from 'vitest'

import { ReceiveBudget } from '../limits/receive-budget.js'
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
    waitingReader.destroy(() => new Error('cut off'))
    await expect(read).rejects.toThrow('cut off')

    const queued = new ChunkFeed(10)
    expect(queued.write(new Uint8Array(20))).toBe(false)
    const writerWait = queued.drained()
    queued.destroy(() => new Error('cut off'))
    await expect(writerWait).resolves.toBeUndefined()
    await expect(readAll(queued)).rejects.toThrow('cut off')
    expect(() => queued.write(new Uint8Array(1))).toThrow('closed')
  })

  it('keeps the end once ended: a later destroy does not fail the pieces already queued', async () => {
    const feed = new ChunkFeed(100)
    feed.write(new Uint8Array(5))
    feed.end()
    feed.destroy(() => new Error('request closed after its body'))
    expect((await readAll(feed)).map((piece) => piece.length)).toEqual([5])
  })

  it('makes its error only when the destroy fails the read', async () => {
    let made = 0
    const error = () => {
      made++
      return new Error('cut off')
    }
    const ended = new ChunkFeed(100)
    ended.write(new Uint8Array(5))
    ended.end()
    ended.destroy(error)
    expect(made).toBe(0)
    expect((await readAll(ended)).map((piece) => piece.length)).toEqual([5])

    const open = new ChunkFeed(100)
    open.write(new Uint8Array(5))
    open.destroy(error)
    open.destroy(error)
    expect(made).toBe(1)
    await expect(readAll(open)).rejects.toThrow('cut off')
  })

  describe('past its own bytes, with a budget', () => {
    const KiB = 1024
    const MiB = 1024 * KiB

    /** Writes 64 KiB pieces until the feed asks to wait; the bytes it took. */
    function fill(feed: ChunkFeed, most: number): number {
      let written = 0
      while (written < most) {
        written += 64 * KiB
        if (!feed.write(new Uint8Array(64 * KiB))) break
      }
      return written
    }

    it('borrows in steps up to what the budget has, and gives it all back as the store reads', async () => {
      const budget = new ReceiveBudget(3 * MiB)
      const feed = new ChunkFeed(256 * KiB, 10 * MiB, budget)
      expect(fill(feed, 10 * MiB)).toBe(256 * KiB + 3 * MiB)
      expect(budget.usedBytes).toBe(3 * MiB)
      // The store reads two steps' worth: one goes back, one stays to write on into.
      const reader = feed[Symbol.asyncIterator]()
      for (let read = 0; read < 2 * MiB; read += 64 * KiB) await reader.next()
      expect(budget.usedBytes).toBe(2 * MiB)
      await expect(feed.drained()).resolves.toBeUndefined()
      feed.end()
      while (!(await reader.next()).done);
      expect(budget.usedBytes).toBe(0)
    })

    it('holds none of the budget once the store has caught up, though the body goes on', async () => {
      // A request that sent ahead and then stalls must not keep the buffer from other chunks.
      const budget = new ReceiveBudget(8 * MiB)
      const feed = new ChunkFeed(256 * KiB, 8 * MiB, budget)
      const written = fill(feed, 3 * MiB)
      expect(budget.usedBytes).toBeGreaterThan(0)
      const reader = feed[Symbol.asyncIterator]()
      for (let read = 0; read < written; read += 64 * KiB) await reader.next()
      expect(budget.usedBytes).toBe(0)
      feed.destroy(() => new Error('cut off'))
    })

    it('holds no more than its chunk, however much the budget has', () => {
      const budget = new ReceiveBudget(64 * MiB)
      const feed = new ChunkFeed(256 * KiB, 1536 * KiB, budget)
      expect(fill(feed, 10 * MiB)).toBe(1536 * KiB)
      expect(budget.usedBytes).toBe(1280 * KiB)
    })

    it('gives back what it borrowed when destroyed, read or not', () => {
      const budget = new ReceiveBudget(8 * MiB)
      const cut = new ChunkFeed(256 * KiB, 4 * MiB, budget)
      fill(cut, 4 * MiB)
      expect(budget.usedBytes).toBeGreaterThan(0)
      cut.destroy(() => new Error('cut off'))
      expect(budget.usedBytes).toBe(0)
      // Destroyed after its end (the request's release), a feed gives back what it still holds.
      const whole = new ChunkFeed(256 * KiB, 4 * MiB, budget)
      fill(whole, 4 * MiB)
      whole.end()
      whole.destroy(() => new Error('released'))
      expect(budget.usedBytes).toBe(0)
    })
  })
})
