// A vitest reporter that records how long each test file took, setup hooks included, beside the
// run's JSON report: `.test-results/server.json` gets `.test-results/files/server.json`, which
// test-summary.mjs reads to name the slowest files. It writes nothing when the run has no JSON
// report (a developer's ad-hoc run).
import { mkdirSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, relative, resolve } from 'node:path'

const repository = resolve(dirname(new URL(import.meta.url).pathname), '..')

export default class FileDurations {
  /** @type {string | undefined} */
  output

  onInit(vitest) {
    const outputFile = vitest.config.outputFile
    const json = typeof outputFile === 'string' ? outputFile : outputFile?.json
    if (json === undefined) return
    const report = resolve(vitest.config.root, json)
    this.output = join(dirname(report), 'files', basename(report))
  }

  onTestRunEnd(testModules) {
    if (this.output === undefined) return
    const files = testModules.map((module) => {
      const diagnostic = module.diagnostic()
      const project = module.project.name
      return {
        file: relative(repository, module.moduleId),
        project: project === '' ? undefined : project,
        // Importing the file and its setup files, then every hook and test in it.
        durationMs: Math.round(
          diagnostic.setupDuration + diagnostic.collectDuration + diagnostic.duration,
        ),
        state: module.state(),
      }
    })
    mkdirSync(dirname(this.output), { recursive: true })
    writeFileSync(this.output, JSON.stringify({ files }, null, 2) + '\n')
  }
}
