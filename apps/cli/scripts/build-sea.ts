/**
 * Builds the single executable `dist-sea/fileshare` (Node's single executable applications): the
 * whole command, its dependencies included, bundled into one CommonJS script, turned into a
 * preparation blob by `node --experimental-sea-config` and injected with postject into a copy of
 * the Node binary running this script. The result runs on machines of the same platform and
 * architecture with no Node installed.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, copyFile, mkdir, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

import { build } from 'esbuild'

import { CARRIED_MANIFEST } from '../src/lib/verify-web.js'
import { SEA_WORKER_ASSET } from '../src/lib/cipher-threads.js'

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))
const outdir = `${root}dist-sea`
const executable = `${outdir}/fileshare`
const carriedManifest = `${root}dist/${CARRIED_MANIFEST}`

/** The fuse postject flips so that Node runs the injected blob (Node's SEA documentation). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'

// macOS and Windows need a signature step (and another section name) this script does not do.
if (process.platform !== 'linux') {
  throw new Error(`build-sea builds for Linux only, not ${process.platform}`)
}

await rm(outdir, { recursive: true, force: true })
await mkdir(outdir)
await build({
  absWorkingDir: root,
  entryPoints: ['src/sea.ts'],
  outfile: `${outdir}/fileshare.cjs`,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.19',
  // The script's require loads Node's built-in modules only: dynamic imports of them become
  // requires, and ws is told not to look for its optional native add-ons.
  supported: { 'dynamic-import': false },
  define: {
    'process.env.WS_NO_BUFFER_UTIL': '"1"',
    'process.env.WS_NO_UTF_8_VALIDATE': '"1"',
    // The stand-in for node:module below ignores it; `open` takes its folder (/) as the sign of
    // a bundle and runs the system's xdg-open.
    'import.meta.url': '"file:///fileshare"',
  },
  external: ['bufferutil', 'utf-8-validate'],
  mainFields: ['module', 'main'],
  alias: { 'node:module': './scripts/sea-module.ts' },
  legalComments: 'eof',
  logLevel: 'warning',
})

// The cipher thread's module, whole in one file: the executable starts it from this asset.
await build({
  absWorkingDir: root,
  entryPoints: ['src/lib/cipher-worker.ts'],
  outfile: `${outdir}/${SEA_WORKER_ASSET}`,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  legalComments: 'eof',
  logLevel: 'warning',
})

await writeFile(
  `${outdir}/sea-config.json`,
  JSON.stringify({
    main: `${outdir}/fileshare.cjs`,
    output: `${outdir}/sea-prep.blob`,
    assets: {
      [SEA_WORKER_ASSET]: `${outdir}/${SEA_WORKER_ASSET}`,
      // A release puts the web app's manifest beside the package's code (verify-web carries it).
      ...(existsSync(carriedManifest) ? { [CARRIED_MANIFEST]: carriedManifest } : {}),
    },
    disableExperimentalSEAWarning: true,
    useCodeCache: true,
  }),
)
await run(process.execPath, ['--experimental-sea-config', `${outdir}/sea-config.json`])
await copyFile(process.execPath, executable)
await chmod(executable, 0o755)
const postject = createRequire(import.meta.url).resolve('postject/dist/cli.js')
await run(process.execPath, [
  postject,
  executable,
  'NODE_SEA_BLOB',
  `${outdir}/sea-prep.blob`,
  '--sentinel-fuse',
  SEA_FUSE,
])
console.log(executable)
