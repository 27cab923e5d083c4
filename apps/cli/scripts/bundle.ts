/**
 * Builds `dist/`: the command and the protocol package in one ES module (`dist/index.js`), with
 * the parts only some commands need split into chunks that load on first use (Argon2id, HPKE),
 * and the cipher thread's module (`dist/cipher-worker.js`).
 *
 * One file instead of a tree of modules roughly halves the command's start-up time, which every
 * command pays, and a large share of a short transfer. Packages that are
 * loaded lazily anyway, or that look for files of their own beside their code, stay in
 * node_modules. Type checking is `pnpm typecheck`; this only transpiles.
 */
import { build } from 'esbuild'
import { rm } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const outdir = `${root}dist`

/**
 * Loaded only by the commands that use them (`import()` or `require` where called), so bundling
 * them would not shorten any start.
 */
const EXTERNAL = ['ws', 'open', '@inquirer/prompts', 'cli-progress']

await rm(outdir, { recursive: true, force: true })
await build({
  absWorkingDir: root,
  // The cipher thread's module is an entry of its own: a worker starts it by file name.
  entryPoints: { index: 'src/index.ts', 'cipher-worker': 'src/lib/cipher-worker.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  external: EXTERNAL,
  // ES builds first: the CommonJS (UMD) build of hash-wasm loses its named exports when a
  // bundle imports it lazily.
  mainFields: ['module', 'main'],
  sourcemap: true,
  legalComments: 'linked',
  // Bundled CommonJS packages (commander) require Node's built-in modules, which an ES module
  // reaches only through a require of its own.
  banner: {
    js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);",
  },
  logLevel: 'warning',
})
