// Totals the JSON reports that every package's vitest run writes to .test-results/, and prints
// one closing line for the whole repository: "tests: N passed, N failed, N skipped".
import { readdirSync, readFileSync } from 'node:fs'

const dir = new URL('../.test-results/', import.meta.url)
let files = []
try {
  files = readdirSync(dir).filter((name) => name.endsWith('.json'))
} catch {
  // No reports at all is reported as zero tests below, which fails the run.
}

const total = { passed: 0, failed: 0, skipped: 0 }
for (const name of files) {
  const report = JSON.parse(readFileSync(new URL(name, dir), 'utf8'))
  total.passed += report.numPassedTests
  total.failed += report.numFailedTests
  total.skipped += report.numPendingTests + report.numTodoTests
  console.log(
    `${name.replace(/\.json$/, '').padEnd(12)} ${report.numPassedTests} passed, ${report.numFailedTests} failed`,
  )
}
console.log(`tests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`)
process.exit(total.failed === 0 && total.passed > 0 ? 0 : 1)
