/** The tiers a test file's name places it in, and the worker count by the cores. */
import { matchesGlob } from 'node:path'

import { describe, expect, it } from 'vitest'

import { QUICK_MODE, testWorkers, tierExclude } from './tiers.js'

const inQuickTier = (file: string) =>
  !tierExclude(QUICK_MODE).some((glob) => matchesGlob(file, glob))

describe('tierExclude', () => {
  it('leaves nothing out of the full run', () => {
    expect(tierExclude('test')).toEqual([])
  })

  it('keeps untagged files and files run on both databases in the quick tier', () => {
    for (const file of [
      'apps/server/test/keep-alive.test.ts',
      'apps/server/test/uploads.dialects.test.ts',
      'apps/server/src/db/parity.test.ts',
      'apps/cli/test/transfer.test.ts',
    ]) {
      expect(inQuickTier(file), file).toBe(true)
    }
  })

  it('leaves out every file tagged pg, s3, proc or soak, wherever the tag stands', () => {
    for (const file of [
      'apps/server/test/postgres.pg.test.ts',
      'apps/server/test/admin.proc.dialects.test.ts',
      'apps/server/test/shutdown.proc.test.ts',
      'apps/server/test/stored-sessions.s3.pg.test.ts',
      'apps/server/test/resume.s3.dialects.test.ts',
      'apps/server/test/blob-store.s3.test.ts',
      'apps/cli/test/zip64.soak.test.ts',
      'packages/protocol/test/stream-4gib.soak.test.ts',
    ]) {
      expect(inQuickTier(file), file).toBe(false)
    }
  })
})

describe('testWorkers', () => {
  it('runs two files side by side on one or two cores', () => {
    expect(testWorkers(1)).toBe(2)
    expect(testWorkers(2)).toBe(2)
  })

  it("keeps vitest's own choice, one fewer than the cores, on more", () => {
    expect(testWorkers(4)).toBe(3)
    expect(testWorkers(16)).toBe(15)
  })
})
