/** The server-wide receive budget and one socket's share of it, on frames built by hand. */
import { PassThrough } from 'node:stream'

import { describe, expect, it, vi } from 'vitest'

import { ReceiveAccount } from './receive-account.js'
import { ReceiveBudget } from '../limits/receive-budget.js'

/** The header of a masked binary frame of `length` bytes (RFC 6455 §5.2), 8 bytes long. */
function header(length: number): Buffer {
  const bytes = Buffer.from([0x82, 0x80 | 126, 0, 0, 0, 0, 0, 0])
  bytes.writeUInt16BE(length, 2)
  return bytes
}

const settled = () => new Promise<void>((resolve) => queueMicrotask(resolve))

describe('ReceiveBudget', () => {
  it('takes what fits and refuses what does not', () => {
    const budget = new ReceiveBudget(100)
    expect(budget.tryTake(60)).toBe(true)
    expect(budget.tryTake(41)).toBe(false)
    expect(budget.tryTake(40)).toBe(true)
    expect(budget.usedBytes).toBe(100)
  })

  it('counts bytes already held even past the limit', () => {
    const budget = new ReceiveBudget(100)
    budget.force(150)
    expect([budget.usedBytes, budget.peakBytes]).toEqual([150, 150])
    budget.give(150)
    expect([budget.usedBytes, budget.peakBytes]).toEqual([0, 150])
  })

  it('serves waiters in arrival order as each fits, after the step that gave', async () => {
    const budget = new ReceiveBudget(100)
    budget.force(100)
    const granted: string[] = []
    budget.wait(80, () => granted.push('large'))
    budget.wait(30, () => granted.push('small'))
    budget.give(40)
    expect(granted).toEqual([])
    await settled()
    // The large one does not fit yet; the small one behind it does.
    expect(granted).toEqual(['small'])
    budget.give(70)
    await settled()
    expect(granted).toEqual(['small', 'large'])
    expect(budget.usedBytes).toBe(100)
  })

  it('forgets a cancelled waiter', async () => {
    const budget = new ReceiveBudget(10)
    budget.force(10)
    const grant = vi.fn()
    const cancel = budget.wait(5, grant)
    cancel()
    budget.give(10)
    await settled()
    expect(grant).not.toHaveBeenCalled()
    expect(budget.usedBytes).toBe(0)
  })
})

describe('ReceiveAccount', () => {
  function account(limit: number, maxFrame = 1000) {
    const budget = new ReceiveBudget(limit)
    const socket = new PassThrough()
    const reads: string[] = []
    const share = new ReceiveAccount(socket, {
      budget,
      maxFrame,
      pause: () => reads.push('pause'),
      resume: () => reads.push('resume'),
    })
    return { budget, socket, reads, share }
  }

  it('takes a whole frame from its header and gives it back once the frame is complete', () => {
    const { budget, socket, reads } = account(2000)
    socket.write(header(500))
    expect(budget.usedBytes).toBe(508)
    socket.write(Buffer.alloc(200))
    expect(budget.usedBytes).toBe(508)
    socket.write(Buffer.alloc(300))
    expect(budget.usedBytes).toBe(0)
    expect(reads).toEqual([])
  })

  it('pauses at a header the budget cannot cover and reads again once it can', async () => {
    const { budget, socket, reads, share } = account(1000)
    budget.force(700)
    socket.write(header(500))
    // Only the header is held; the frame waits with reading paused.
    expect(reads).toEqual(['pause'])
    expect(share.waiting).toBe(true)
    expect(budget.usedBytes).toBe(708)
    budget.give(700)
    await settled()
    expect(reads).toEqual(['pause', 'resume'])
    expect(budget.usedBytes).toBe(508)
  })

  it('hands a complete frame over to storage without counting it twice', () => {
    const { budget, socket, share } = account(2000)
    socket.write(header(500))
    // The parser hands the frame on before the account sees its last bytes.
    share.handOver(500)
    expect(budget.usedBytes).toBe(508)
    socket.write(Buffer.alloc(500))
    expect(budget.usedBytes).toBe(500)
    budget.give(500)
    expect(budget.usedBytes).toBe(0)
  })

  it('commits no more than the longest frame the socket may be sent', () => {
    const { budget, socket } = account(10_000, 1000)
    socket.write(header(5000))
    expect(budget.usedBytes).toBe(8 + 1000)
  })

  it('gives back everything at close, waiting or not', async () => {
    const { budget, socket, share } = account(1000)
    socket.write(header(300))
    budget.force(600)
    const other = new PassThrough()
    const waiting = new ReceiveAccount(other, {
      budget,
      maxFrame: 1000,
      pause: () => undefined,
      resume: () => undefined,
    })
    other.write(header(300))
    expect(waiting.waiting).toBe(true)
    waiting.close()
    share.close()
    budget.give(600)
    await settled()
    expect(budget.usedBytes).toBe(0)
    // Closed accounts count nothing more.
    socket.write(header(10))
    expect(budget.usedBytes).toBe(0)
  })
})
