import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    globalSetup: ['src/global-setup.ts'],
    // The suites share the run's fileshare image (the first one builds it) and podman's store;
    // one after the other, the second reuses what the first built instead of building it too.
    fileParallelism: false,
    // Building the base image and the service's image on a fresh machine takes minutes, and
    // many more when other work shares the cores; a limit here must not fail a slow build.
    testTimeout: 300_000,
    hookTimeout: 1_200_000,
  },
})
