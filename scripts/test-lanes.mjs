// Runs what `pnpm test` runs after the build, in the lanes of packages/testing/src/test-lanes.ts,
// side by side. The first lane prints as it goes; a step of another lane prints its output in
// one piece when it ends, so the log reads step by step. Each step runs whatever the ones before
// it answered, and ends with a line naming it, its result and its time; the exit status is 1
// when any step failed.
import { spawn } from 'node:child_process'

import { testLanes } from '../packages/testing/dist/test-lanes.js'

const root = new URL('..', import.meta.url).pathname

/** Runs one step; answers whether it passed. */
function runStep(step, live) {
  return new Promise((resolve) => {
    const started = performance.now()
    const child = spawn(step.command, step.args, {
      cwd: root,
      stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    })
    const output = []
    if (!live) {
      child.stdout.on('data', (data) => output.push(data))
      child.stderr.on('data', (data) => output.push(data))
    }
    let ended = false
    const end = (passed, why = '') => {
      if (ended) return
      ended = true
      process.stdout.write(Buffer.concat(output))
      const seconds = Math.round((performance.now() - started) / 1000)
      console.log(`== ${step.name}: ${passed ? 'passed' : `FAILED${why}`} in ${seconds} s`)
      resolve(passed)
    }
    child.once('error', (error) => end(false, ` (${error.message})`))
    child.once('close', (code) => end(code === 0))
  })
}

async function runLane(steps, live) {
  let passed = true
  for (const step of steps) passed = (await runStep(step, live)) && passed
  return passed
}

const lanes = testLanes()
const results = await Promise.all(lanes.map((steps, index) => runLane(steps, index === 0)))
process.exit(results.every(Boolean) ? 0 : 1)
