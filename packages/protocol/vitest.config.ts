/** The protocol's tests; `--mode quick` leaves out the long runs (docs/testing.md). */
import { tierExclude } from '@fileshare/testing/tiers'
import { defineConfig } from 'vitest/config'

export default defineConfig(({ mode }) => ({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: tierExclude(mode),
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
}))
