import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Building the base image and the service's image on a fresh machine takes minutes.
    testTimeout: 480_000,
    hookTimeout: 480_000,
  },
})
