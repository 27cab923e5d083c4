import { describe, expect, it } from 'vitest'
import { WS_CLOSE_CODES } from './ws-frames.js'

describe('WS_CLOSE_CODES', () => {
  it('holds the close codes of the spec', () => {
    expect(WS_CLOSE_CODES).toEqual({
      normal: 1000,
      protocolError: 1002,
      unsupportedData: 1003,
      policyViolation: 1008,
      messageTooBig: 1009,
      internalError: 1011,
    })
  })
})
