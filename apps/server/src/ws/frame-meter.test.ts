/** What the frame meter counts, on frames built by hand (RFC 6455 §5.2) and cut anywhere. */
import { describe, expect, it } from 'vitest'

import { FrameMeter } from './frame-meter.js'

/** A masked client frame: `opcode`, FIN unless `more`, and `length` payload bytes. */
function frame(opcode: number, length: number, more = false): Buffer {
  const first = (more ? 0 : 0x80) | opcode
  let header: Buffer
  if (length < 126) header = Buffer.from([first, 0x80 | length])
  else if (length < 0x10000) {
    header = Buffer.from([first, 0x80 | 126, 0, 0])
    header.writeUInt16BE(length, 2)
  } else {
    header = Buffer.alloc(10)
    header[0] = first
    header[1] = 0x80 | 127
    header.writeBigUInt64BE(BigInt(length), 2)
  }
  return Buffer.concat([header, Buffer.from([1, 2, 3, 4]), Buffer.alloc(length, 7)])
}

function metered(...chunks: Buffer[]): FrameMeter {
  const meter = new FrameMeter()
  for (const chunk of chunks) meter.push(chunk)
  return meter
}

describe('FrameMeter', () => {
  it('tells whether a frame has begun and not ended, fragments apart', () => {
    const text = frame(0x1, 300, true)
    expect(metered().midFrame).toBe(false)
    expect(metered(text.subarray(0, 1)).midFrame).toBe(true)
    expect(metered(text.subarray(0, 100)).midFrame).toBe(true)
    // Between the fragments of a message a control frame may come (RFC 6455 §5.4).
    expect(metered(text).midFrame).toBe(false)
    expect(metered(text, frame(0x0, 0)).midFrame).toBe(false)
  })

  it('holds nothing once whole frames have arrived, however the bytes were cut', () => {
    const bytes = Buffer.concat([
      frame(0x1, 20),
      frame(0x2, 300),
      frame(0x2, 70_000),
      frame(0x9, 0),
    ])
    for (const cut of [1, 7, 1000, bytes.length]) {
      const meter = new FrameMeter()
      for (let at = 0; at < bytes.length; at += cut) meter.push(bytes.subarray(at, at + cut))
      expect([meter.heldBytes, meter.committedBytes]).toEqual([0, 0])
    }
  })

  it('commits the whole of a frame from its header, before its payload arrives', () => {
    const whole = frame(0x2, 1000)
    const meter = metered(whole.subarray(0, 8 + 10))
    expect(meter.heldBytes).toBe(18)
    expect(meter.committedBytes).toBe(8 + 1000)
    meter.push(whole.subarray(18, 500))
    expect([meter.heldBytes, meter.committedBytes]).toEqual([500, 1008])
  })

  it('reads 64-bit lengths', () => {
    const header = frame(0x2, 32 * 1024 * 1024).subarray(0, 14)
    expect(metered(header).committedBytes).toBe(14 + 32 * 1024 * 1024)
  })

  it('commits nothing until a header is complete', () => {
    const header = frame(0x2, 70_000).subarray(0, 14)
    const meter = new FrameMeter()
    for (let at = 0; at < 13; at++) meter.push(header.subarray(at, at + 1))
    expect([meter.heldBytes, meter.committedBytes]).toEqual([13, 13])
    meter.push(header.subarray(13))
    expect(meter.committedBytes).toBe(14 + 70_000)
  })

  it('holds the fragments of a message, and control frames between them, until its end', () => {
    const first = frame(0x2, 100, true)
    const ping = frame(0x9, 5)
    const middle = frame(0x0, 200, true)
    const meter = metered(first, ping, middle)
    expect(meter.heldBytes).toBe(first.length + ping.length + middle.length)
    const last = frame(0x0, 300)
    meter.push(last.subarray(0, 8))
    expect(meter.committedBytes).toBe(first.length + ping.length + middle.length + last.length)
    meter.push(last.subarray(8))
    expect([meter.heldBytes, meter.committedBytes]).toEqual([0, 0])
  })

  it('counts what follows a complete frame in the same chunk', () => {
    const next = frame(0x2, 5000)
    const meter = metered(Buffer.concat([frame(0x2, 10), frame(0x8, 2), next.subarray(0, 100)]))
    expect([meter.heldBytes, meter.committedBytes]).toEqual([100, next.length])
  })
})
