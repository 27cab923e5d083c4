/** The suite runs on the Node that scripts/test-node-lts.mjs gave it, named by FILESHARE_TEST_NODE. */
import { describe, expect, it } from 'vitest'

const GIVEN = process.env.FILESHARE_TEST_NODE

describe('the Node under the suite', () => {
  it.runIf(GIVEN)(`is the one it was given, ${GIVEN}`, () => {
    expect(process.version).toBe(GIVEN)
  })
})
