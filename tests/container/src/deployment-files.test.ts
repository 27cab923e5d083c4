/**
 * The deployment files kept in step with the rest of the repository; these need no podman: both
 * compose files name every setting, nginx's cluster config names every instance, and the
 * Dockerfile names no architecture, copies every workspace manifest before it installs (a missing
 * one would leave that package out) and puts both dialects' migrations in the image.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'

import { describe, expect, it } from 'vitest'

import { REPO_ROOT } from './service-image.js'

const read = (path: string) => readFile(join(REPO_ROOT, path), 'utf8')

describe.each(['compose.yaml', 'compose.cluster.yaml'])('%s', (file) => {
  it('lists every variable of docs/configuration.md', async () => {
    const docs = await read('docs/configuration.md')
    const variables = [...docs.matchAll(/^\| `([A-Z][A-Z0-9_]+)`/gm)].map((match) => match[1])
    expect(variables.length).toBeGreaterThan(50)
    const compose = await read(file)
    const listed = new Set([...compose.matchAll(/^\s*#? ?([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]))
    expect(variables.filter((name) => !listed.has(name))).toEqual([])
  })
})

describe('deploy/nginx-cluster.conf', () => {
  it('sends requests to every fileshare instance of compose.cluster.yaml, and to nothing else', async () => {
    const compose = await read('compose.cluster.yaml')
    const services = [...compose.matchAll(/^ {2}(fileshare-\d+):/gm)].map((match) => match[1])
    expect(services.length).toBeGreaterThan(1)
    const nginx = await read('deploy/nginx-cluster.conf')
    const servers = [...nginx.matchAll(/^\s*server (\S+):3000\b/gm)].map((match) => match[1])
    expect(servers).toEqual(services)
  })
})

describe('Dockerfile', () => {
  it('names no processor architecture, so that it builds on arm64 as on amd64', async () => {
    const dockerfile = await read('Dockerfile')
    expect(dockerfile).not.toMatch(/amd64|x86_64|x64|arm64|aarch64|armv7|--platform/i)
  })

  it('copies the manifest of every workspace package before installing', async () => {
    const dockerfile = await read('Dockerfile')
    const workspace = await read('pnpm-workspace.yaml')
    const folders = [...workspace.matchAll(/^\s*- (\S+)\/\*$/gm)].map((match) => match[1] ?? '')
    expect(folders.length).toBeGreaterThan(0)
    for (const folder of folders) {
      for (const entry of await readdir(join(REPO_ROOT, folder), { withFileTypes: true })) {
        if (!entry.isDirectory()) continue
        const manifest = `${folder}/${entry.name}/package.json`
        const exists = await readFile(join(REPO_ROOT, manifest)).then(
          () => true,
          () => false,
        )
        if (exists) expect(dockerfile).toContain(`COPY ${manifest} ${folder}/${entry.name}/\n`)
      }
    }
  })

  it('puts the migrations of every database dialect in the image', async () => {
    const dockerfile = await read('Dockerfile')
    const folders = (await readdir(join(REPO_ROOT, 'apps/server'), { withFileTypes: true }))
      .filter((entry) => entry.isDirectory() && /^drizzle(-|$)/.test(entry.name))
      .map((entry) => `apps/server/${entry.name}`)
    expect(folders.length).toBeGreaterThan(1)
    for (const folder of folders) expect(dockerfile).toMatch(new RegExp(`${folder}[ \\n]`))
  })
})
