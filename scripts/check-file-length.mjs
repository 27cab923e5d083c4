// Fails when a source file of the server (a non-test .ts file under apps/server/src) is longer
// than MAX_LINES: a module that long does more than one job. The known exceptions are named
// below and may only go: an exception that is gone or back under the limit fails the check too,
// so the list is shortened in the change that shortens the file. Runs in `pnpm lint`.
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'

import { ROOT, serverSourceFiles } from './server-sources.mjs'

const MAX_LINES = 500

/** Files over the limit that are to be rewritten into one model; none may be added. */
const KNOWN_EXCEPTIONS = new Set([])

function lineCount(path) {
  const text = readFileSync(path, 'utf8')
  return text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length
}

const problems = []
const seen = new Set()
for (const path of serverSourceFiles()) {
  const name = relative(ROOT, path)
  const lines = lineCount(path)
  seen.add(name)
  if (KNOWN_EXCEPTIONS.has(name)) {
    if (lines <= MAX_LINES) problems.push(`${name} has ${lines} lines: drop it from the exceptions`)
  } else if (lines > MAX_LINES) {
    problems.push(`${name} has ${lines} lines, more than ${MAX_LINES}: split it by job`)
  }
}
for (const name of KNOWN_EXCEPTIONS) {
  if (!seen.has(name)) problems.push(`${name} is gone: drop it from the exceptions`)
}
if (problems.length > 0) {
  for (const problem of problems) console.error(problem)
  process.exit(1)
}
console.log(`Every server source file has at most ${MAX_LINES} lines but the known exceptions.`)
