/**
 * The web app's unit and component tests: the build's configuration, and with `--mode quick`
 * without the long runs (docs/testing.md). Kept apart from vite.config.ts so that the build
 * itself reads nothing of the test support.
 */
import { tierExclude } from '@fileshare/testing/tiers'
import { defineConfig, mergeConfig } from 'vitest/config'

import viteConfig from './vite.config.ts'

export default defineConfig(({ mode }) =>
  mergeConfig(viteConfig, { test: { exclude: tierExclude(mode) } }),
)
