// Checks commit messages: a subject of at most 72 characters, then a blank line before any body.
// `node scripts/check-commits.mjs` checks every commit since the rule began (CI runs it through
// `pnpm test`); `node scripts/check-commits.mjs --message-file F` checks one message, as the
// commit-msg hook in .githooks/ does.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

/** The last commit before the rule; every commit after it is checked. */
const RULE_BASE = '9a54c2805b2b71235a295979209d0bbdba13e2e7'
const SUBJECT_MAX = 72

/** What is wrong with one commit message, or an empty list. */
function messageProblems(message) {
  const lines = message
    .split('\n')
    .filter((line) => !line.startsWith('#'))
    .map((line) => line.trimEnd())
  while (lines.length > 0 && lines[0] === '') lines.shift()
  const problems = []
  const subject = lines[0] ?? ''
  if (subject === '') problems.push('the subject is empty')
  if (subject.length > SUBJECT_MAX)
    problems.push(`the subject has ${subject.length} characters, more than ${SUBJECT_MAX}`)
  if (lines.length > 1 && lines[1] !== '')
    problems.push('the subject is not followed by a blank line')
  return problems
}

function git(...args) {
  return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

function checkRange() {
  try {
    git('cat-file', '-e', `${RULE_BASE}^{commit}`)
  } catch {
    console.error(`commit messages: ${RULE_BASE.slice(0, 7)} is not in this clone's history`)
    console.error('(a shallow clone? fetch the whole history: git fetch --unshallow)')
    return 1
  }
  const hashes = git('rev-list', `${RULE_BASE}..HEAD`).split('\n').filter(Boolean)
  let bad = 0
  for (const hash of hashes) {
    const problems = messageProblems(git('log', '-1', '--format=%B', hash))
    if (problems.length === 0) continue
    bad++
    console.error(`${hash.slice(0, 7)} ${git('log', '-1', '--format=%s', hash).trim()}`)
    for (const problem of problems) console.error(`  ${problem}`)
  }
  console.log(`commit messages: ${hashes.length - bad} of ${hashes.length} well formed`)
  return bad === 0 ? 0 : 1
}

function checkFile(path) {
  const problems = messageProblems(readFileSync(path, 'utf8'))
  for (const problem of problems) console.error(`commit message: ${problem}`)
  return problems.length === 0 ? 0 : 1
}

const fileFlag = process.argv.indexOf('--message-file')
process.exit(fileFlag === -1 ? checkRange() : checkFile(process.argv[fileFlag + 1]))
