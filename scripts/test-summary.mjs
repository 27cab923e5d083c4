// Totals the JSON reports that every package's vitest run writes to .test-results/, names the
// slowest test files from the durations file-durations.mjs writes beside them, and prints one
// closing line for the whole repository: "tests: N passed, N failed, N skipped". Failed tests are
// named last, with the first lines of their errors, so that a log kept only by its tail shows them.
import { readdirSync, readFileSync } from 'node:fs'

const SLOWEST = 15
const dir = new URL('../.test-results/', import.meta.url)

/** The files of one folder of .test-results/ ending in `ending`, none when it is missing. */
function filesIn(folder, ending = '.json') {
  try {
    return readdirSync(folder).filter((name) => name.endsWith(ending))
  } catch {
    // No reports at all is reported as zero tests below, which fails the run.
    return []
  }
}

const FAILURE_LINES = 6
const DESCRIPTION_LINES = 60
const total = { passed: 0, failed: 0, skipped: 0 }
const failures = []
for (const name of filesIn(dir)) {
  const report = JSON.parse(readFileSync(new URL(name, dir), 'utf8'))
  for (const file of report.testResults ?? []) {
    for (const test of file.assertionResults ?? []) {
      if (test.status !== 'failed') continue
      const message = (test.failureMessages ?? []).join('\n').split('\n')
      failures.push({ run: name.replace(/\.json$/, ''), file: file.name, test, message })
    }
  }
  total.passed += report.numPassedTests
  total.failed += report.numFailedTests
  total.skipped += report.numPendingTests + report.numTodoTests
  console.log(
    `${name.replace(/\.json$/, '').padEnd(12)} ${report.numPassedTests} passed, ${report.numFailedTests} failed`,
  )
}

const filesDir = new URL('files/', dir)
const files = filesIn(filesDir).flatMap((name) => {
  const run = name.replace(/\.json$/, '')
  const { files } = JSON.parse(readFileSync(new URL(name, filesDir), 'utf8'))
  return files.map((entry) => ({ ...entry, run }))
})
if (files.length > 0) {
  const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`
  const byRun = new Map()
  for (const { run, durationMs } of files) byRun.set(run, (byRun.get(run) ?? 0) + durationMs)
  console.log(`\nTime in test files (summed over files; files that run side by side overlap):`)
  for (const [run, ms] of [...byRun].sort((a, b) => b[1] - a[1])) {
    console.log(`  ${run.padEnd(14)} ${seconds(ms).padStart(9)}`)
  }
  console.log(`\nThe ${Math.min(SLOWEST, files.length)} slowest test files:`)
  for (const entry of files.sort((a, b) => b.durationMs - a.durationMs).slice(0, SLOWEST)) {
    const where = entry.project ? `${entry.run}/${entry.project}` : entry.run
    console.log(`  ${seconds(entry.durationMs).padStart(9)}  ${where.padEnd(20)} ${entry.file}`)
  }
  console.log('')
}

if (failures.length > 0) {
  console.log(`Failed tests:`)
  for (const { run, file, test, message } of failures) {
    console.log(`  ${run}: ${file.replace(/^.*?\/(apps|packages|tests)\//, '$1/')}`)
    console.log(`    ${test.fullName ?? test.title}`)
    for (const line of message.slice(0, FAILURE_LINES)) console.log(`      ${line}`)
  }
  console.log('')
}

// What the browser suite saw when a test failed (its pages, unanswered requests, console), one
// text per failed test (apps/web/e2e/suite.ts).
const descriptions = new URL('failures/', dir)
for (const name of filesIn(descriptions, '.txt')) {
  const lines = readFileSync(new URL(name, descriptions), 'utf8').trimEnd().split('\n')
  console.log(`Pages at the failure of: ${lines[0]}`)
  for (const line of lines.slice(1, 1 + DESCRIPTION_LINES)) console.log(`  ${line}`)
  if (lines.length > 1 + DESCRIPTION_LINES)
    console.log(`  (${lines.length - 1 - DESCRIPTION_LINES} more lines)`)
  console.log('')
}

console.log(`tests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`)
process.exit(total.failed === 0 && total.passed > 0 ? 0 : 1)
