// Fails when a source file of the server (a non-test .ts file under apps/server/src) does not open
// with a block comment that ends with a `May touch:` paragraph, saying what the file reaches beyond
// itself (docs/architecture.md), or when that paragraph leaves out a table the file's code reads
// through `tables`. Runs in `pnpm lint`.
import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

import { ROOT, SERVER_SOURCE, serverSourceFiles } from './server-sources.mjs'

/** The tables by the property names the code uses, mapped to their names in SQL. */
function tableNames() {
  const tables = readFileSync(join(SERVER_SOURCE, 'db/tables.ts'), 'utf8')
  const names = new Map()
  for (const [, property, name] of tables.matchAll(/const (\w+) = c\.table\(\s*'(\w+)'/g)) {
    names.set(property, name)
  }
  if (names.size === 0) throw new Error('no table found in db/tables.ts')
  return names
}

/** The opening block comment, after a shebang line if there is one; undefined when none. */
function openingComment(text) {
  const body = text.startsWith('#!') ? text.slice(text.indexOf('\n') + 1) : text
  if (!body.startsWith('/*')) return undefined
  const end = body.indexOf('*/')
  return end < 0 ? undefined : { comment: body.slice(0, end + 2), code: body.slice(end + 2) }
}

/** The comment's lines without their ` * ` margin. */
function commentLines(comment) {
  return comment
    .replace(/^\/\*\*?/, '')
    .replace(/\*\/$/, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\*? ?/, '').trimEnd())
}

/** The `May touch:` paragraph when it is the comment's last, else undefined. */
function mayTouch(comment) {
  const lines = commentLines(comment)
  while (lines.length > 0 && lines.at(-1) === '') lines.pop()
  const start = lines.findLastIndex((line) => line.startsWith('May touch:'))
  if (start < 0 || lines.slice(start).includes('')) return undefined
  const text = lines.slice(start).join(' ').slice('May touch:'.length).trim()
  return text === '' ? undefined : text
}

/** The tables the code reaches by name: `tables.x`, or `{ x, y } = ….tables`. */
function tablesUsed(code, names) {
  const used = new Set()
  const stripped = code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')
  for (const [, property] of stripped.matchAll(/\btables\.(\w+)/g)) used.add(property)
  for (const [, list] of stripped.matchAll(/\{([^{}]*)\}\s*=\s*[\w.]*\btables\b/g)) {
    for (const entry of list.split(',')) used.add(entry.split(':')[0].trim())
  }
  return [...used].filter((property) => names.has(property)).map((property) => names.get(property))
}

const names = tableNames()
const problems = []
for (const path of serverSourceFiles()) {
  const name = relative(ROOT, path)
  const opening = openingComment(readFileSync(path, 'utf8'))
  const touches = opening && mayTouch(opening.comment)
  if (opening === undefined) {
    problems.push(`${name} opens with no block comment saying what it owns and may touch`)
  } else if (touches === undefined) {
    problems.push(`${name}: its opening comment does not end with a "May touch: ..." line`)
  } else {
    const missing = tablesUsed(opening.code, names).filter(
      (table) => !new RegExp(`\\b${table}\\b`).test(touches),
    )
    if (missing.length > 0) {
      problems.push(`${name} uses tables its May touch line does not name: ${missing.join(', ')}`)
    }
  }
}
if (problems.length > 0) {
  for (const problem of problems) console.error(problem)
  process.exit(1)
}
console.log('Every server source file opens with what it owns and may touch.')
