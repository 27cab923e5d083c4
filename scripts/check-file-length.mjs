// Fails when a source file of the server (a non-test .ts file under apps/server/src) is longer
// than MAX_LINES: a module that long does more than one job. Runs in `pnpm lint`.
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'

import { ROOT, serverSourceFiles } from './server-sources.mjs'

const MAX_LINES = 500

function lineCount(path) {
  const text = readFileSync(path, 'utf8')
  return text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length
}

const problems = []
for (const path of serverSourceFiles()) {
  const lines = lineCount(path)
  if (lines > MAX_LINES) {
    problems.push(
      `${relative(ROOT, path)} has ${lines} lines, more than ${MAX_LINES}: split it by job`,
    )
  }
}
if (problems.length > 0) {
  for (const problem of problems) console.error(problem)
  process.exit(1)
}
console.log(`Every server source file has at most ${MAX_LINES} lines.`)
