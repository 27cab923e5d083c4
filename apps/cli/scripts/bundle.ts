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
import { build, type OutputFile } from 'esbuild'
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const outdir = `${root}dist`

/**
 * Loaded only by the commands that use them (`import()` or `require` where called), so bundling
 * them would not shorten any start.
 */
const EXTERNAL = ['ws', 'open', '@inquirer/prompts', 'cli-progress']

const { outputFiles } = await build({
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
  write: false,
})
await writeChanged(outputFiles)

/**
 * Writes the files whose bytes changed, each whole through a rename, and removes those the build
 * no longer makes: a suite running the command from dist/ while another builds it (the Node LTS
 * reruns beside the main suites) never finds a file missing or half written.
 */
async function writeChanged(files: OutputFile[]): Promise<void> {
  for (const file of files) {
    const old = await readFile(file.path).catch(() => undefined)
    if (old?.equals(file.contents)) continue
    await mkdir(dirname(file.path), { recursive: true })
    const temp = `${file.path}.${process.pid}.tmp`
    // As esbuild writes them: a file opening with a shebang is executable.
    const shebang = file.contents[0] === 0x23 && file.contents[1] === 0x21
    await writeFile(temp, file.contents, { mode: shebang ? 0o755 : 0o644 })
    await rename(temp, file.path)
  }
  const made = new Set(files.map((file) => file.path))
  for (const entry of await readdir(outdir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name)
    if (entry.isFile() && !made.has(path)) await rm(path, { force: true })
  }
}
