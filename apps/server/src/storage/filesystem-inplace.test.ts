/** The writes into a session file through its gate: one at a time, in turn, none after a close. */
import { describe, expect, it } from 'vitest'

import { SessionGates, type SessionFile } from './filesystem-inplace.js'

const KEY = '00000000-0000-4000-8000-000000000000'

/** A write that settles when told, counting the writes running at once. */
function writes() {
  let running = 0
  let most = 0
  const order: string[] = []
  const make = (name: string, fails = false) => {
    let settle!: () => void
    const done = new Promise<void>((resolve) => (settle = resolve))
    const write = async () => {
      order.push(name)
      running++
      most = Math.max(most, running)
      await done
      running--
      if (fails) throw new Error(`${name} failed`)
      return name
    }
    return { write, settle }
  }
  return { make, order, most: () => most }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('SessionGates.writeInTurn', () => {
  it('runs the writers’ writes one at a time, in the order they came', async () => {
    const gates = new SessionGates<SessionFile>()
    const [a, b] = [gates.enter(KEY), gates.enter(KEY)]
    const w = writes()
    const first = w.make('a1')
    const second = w.make('b1')
    const third = w.make('a2')
    const results = [
      gates.writeInTurn(a, KEY, first.write),
      gates.writeInTurn(b, KEY, second.write),
      gates.writeInTurn(a, KEY, third.write),
    ]
    await tick()
    expect(w.order).toEqual(['a1'])
    first.settle()
    await tick()
    expect(w.order).toEqual(['a1', 'b1'])
    second.settle()
    third.settle()
    expect(await Promise.all(results)).toEqual(['a1', 'b1', 'a2'])
    expect(w.most()).toBe(1)
  })

  it('goes on after a write that failed, whose own writer hears of it', async () => {
    const gates = new SessionGates<SessionFile>()
    const gate = gates.enter(KEY)
    const w = writes()
    const failing = w.make('bad', true)
    const next = w.make('next')
    const failed = gates.writeInTurn(gate, KEY, failing.write)
    const after = gates.writeInTurn(gate, KEY, next.write)
    failing.settle()
    next.settle()
    await expect(failed).rejects.toThrow('bad failed')
    await expect(after).resolves.toBe('next')
  })

  it('fails a write whose turn comes after the gate closed, without running it', async () => {
    const gates = new SessionGates<SessionFile>()
    const gate = gates.enter(KEY)
    const w = writes()
    const running = w.make('running')
    const queued = w.make('queued')
    const first = gates.writeInTurn(gate, KEY, running.write)
    const late = gates.writeInTurn(gate, KEY, queued.write)
    await tick()
    const closing = gates.close(KEY)
    running.settle()
    await closing
    await expect(first).resolves.toBe('running')
    await expect(late).rejects.toThrow('joined or discarded')
    expect(w.order).toEqual(['running'])
  })
})
