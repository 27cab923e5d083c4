/// <reference types="vitest/config" />
/** Builds the single-page web app into dist/, which the server hosts at /. */
import { svelte } from '@sveltejs/vite-plugin-svelte'
import { defineConfig } from 'vite'

import { budgetPlugin } from './vite-plugin-budget.ts'
import { integrityPlugin } from './vite-plugin-integrity.ts'
import packageJson from './package.json' with { type: 'json' }

/** The upload page's first load may bring at most this much JavaScript (gzipped). */
const UPLOAD_PAGE_BUDGET = 150 * 1024

export default defineConfig({
  plugins: [
    svelte(),
    budgetPlugin({ pageModule: 'src/routes/Upload.svelte', maxGzipBytes: UPLOAD_PAGE_BUDGET }),
    // Where the source is published is the signer's to state (docs/deploy.md, WEBCAT).
    integrityPlugin({ appVersion: packageJson.version, appUrl: '' }),
  ],
  // Component tests mount into jsdom, which needs Svelte's browser build.
  resolve: process.env.VITEST ? { conditions: ['browser'] } : {},
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // One stylesheet, linked from index.html and so pinned by subresource integrity; stylesheets
    // a page added later could not be (vite-plugin-integrity.ts).
    cssCodeSplit: false,
  },
  worker: {
    format: 'es',
  },
  server: {
    // The dev server hands API and login calls (and upload sockets) to a local fileshare server.
    proxy: {
      '/api': { target: 'http://localhost:3000', ws: true },
      '/auth': 'http://localhost:3000',
    },
  },
  test: {
    include: ['src/**/*.test.ts', '*.test.ts'],
    environment: 'node',
    // A bound for a test that hangs: mounting components into jsdom takes seconds on a loaded
    // machine, and the tests wait for states, never for a time.
    testTimeout: 30_000,
  },
})
