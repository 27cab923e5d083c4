// Fails when any package's source imports itself back through a chain of relative imports, type
// imports and re-exports included: a cycle hides which module is the lower one, so every edge
// counts. Reads the TypeScript, JavaScript and Svelte files of every package and app (tests,
// benchmarks and scripts alike); imports of other packages cannot form a cycle (the workspace
// graph has none) and are skipped. `node scripts/check-import-cycles.mjs` runs in `pnpm lint`.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const PACKAGE_DIRS = ['apps', 'packages']
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'dist-bench', 'dist-sea', 'build', '.turbo'])
const SOURCE = /\.(ts|mts|js|mjs|svelte)$/
const SVELTE_SCRIPT = /<script\b[^>]*>([\s\S]*?)<\/script>/g

/** Every source file under a directory, skipping build output and dependencies. */
function sourceFiles(dir) {
  const found = []
  for (const name of readdirSync(dir)) {
    if (SKIPPED_DIRS.has(name) || name.startsWith('.')) continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) found.push(...sourceFiles(path))
    else if (SOURCE.test(name) && !name.endsWith('.d.ts')) found.push(path)
  }
  return found
}

/** The module specifiers a file imports or re-exports, statically, by type or dynamically. */
function specifiers(path) {
  const text = readFileSync(path, 'utf8')
  const code = path.endsWith('.svelte')
    ? [...text.matchAll(SVELTE_SCRIPT)].map((match) => match[1]).join('\n')
    : text
  return ts.preProcessFile(code, true, true).importedFiles.map((file) => file.fileName)
}

/** The file a relative specifier names, as TypeScript's NodeNext resolution would find it. */
function resolveRelative(from, specifier) {
  const base = resolve(dirname(from), specifier)
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    `${base}.ts`,
    `${base}.js`,
    join(base, 'index.ts'),
    join(base, 'index.js'),
  ]
  return candidates.find((path) => existsSync(path) && statSync(path).isFile())
}

/** The import graph of a set of files: each file to the files it imports relatively. */
function importGraph(files) {
  const graph = new Map()
  for (const file of files) {
    const targets = specifiers(file)
      .filter((specifier) => specifier.startsWith('./') || specifier.startsWith('../'))
      .map((specifier) => resolveRelative(file, specifier))
      .filter((target) => target !== undefined && SOURCE.test(target))
    graph.set(file, [...new Set(targets)])
  }
  return graph
}

/** The strongly connected components with more than one file, or a file importing itself. */
function cycles(graph) {
  let counter = 0
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const found = []
  const visit = (start) => {
    // Tarjan's algorithm with an explicit stack, so a deep graph cannot overflow the call stack.
    const work = [{ node: start, next: 0 }]
    index.set(start, counter)
    low.set(start, counter++)
    stack.push(start)
    onStack.add(start)
    while (work.length > 0) {
      const frame = work[work.length - 1]
      const targets = graph.get(frame.node) ?? []
      if (frame.next < targets.length) {
        const target = targets[frame.next++]
        if (!index.has(target)) {
          index.set(target, counter)
          low.set(target, counter++)
          stack.push(target)
          onStack.add(target)
          work.push({ node: target, next: 0 })
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node), index.get(target)))
        }
        continue
      }
      work.pop()
      if (work.length > 0) {
        const parent = work[work.length - 1].node
        low.set(parent, Math.min(low.get(parent), low.get(frame.node)))
      }
      if (low.get(frame.node) !== index.get(frame.node)) continue
      const component = []
      let member
      do {
        member = stack.pop()
        onStack.delete(member)
        component.push(member)
      } while (member !== frame.node)
      const selfImport = (graph.get(frame.node) ?? []).includes(frame.node)
      if (component.length > 1 || selfImport) found.push(component.sort())
    }
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return found
}

const packages = PACKAGE_DIRS.flatMap((dir) =>
  readdirSync(join(ROOT, dir)).map((name) => join(ROOT, dir, name)),
).filter((dir) => existsSync(join(dir, 'package.json')))

let failed = 0
for (const dir of packages) {
  for (const component of cycles(importGraph(sourceFiles(dir)))) {
    failed++
    console.error(`Import cycle through ${component.length} files in ${relative(ROOT, dir)}:`)
    for (const file of component) console.error(`  ${relative(ROOT, file)}`)
  }
}
if (failed > 0) {
  console.error(`${failed} import cycle(s); break each at its cause, not with a type import.`)
  process.exit(1)
}
console.log(`No import cycle in ${packages.length} packages.`)
