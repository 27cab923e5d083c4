/** Builds the single-page web app into dist/, which the server hosts at /. */
import { svelte } from '@sveltejs/vite-plugin-svelte'
import { defineConfig } from 'vite'

export default defineConfig({
  plugins: [svelte()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
  server: {
    // The dev server hands API calls to a locally running fileshare server.
    proxy: { '/api': 'http://localhost:3000' },
  },
})
