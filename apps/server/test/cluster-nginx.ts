/**
 * nginx in front of several instances, started from the `variant=cluster` block of
 * docs/deploy.md as written there: its three upstream addresses replaced by the instances', its
 * HTTPS listener by plain HTTP on a local port (TLS is tested with the single-instance block), and
 * run in the foreground from a temporary folder.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

import { freePort, hasExited, portOpen, stopChild } from '@fileshare/testing'

const DEPLOY_DOC = new URL('../../../docs/deploy.md', import.meta.url)
const NGINX = '/usr/sbin/nginx'

/** The instances' placeholders in the documented upstream, in order. */
const DOC_INSTANCES = ['10.0.0.11:3000', '10.0.0.12:3000', '10.0.0.13:3000']
const START_TIMEOUT_MS = 10_000

/** Why nginx cannot run here, or null when it can (installed by .ci/run under CI=true). */
export function nginxMissing(): string | null {
  return existsSync(NGINX) ? null : `${NGINX} is not installed (Debian package nginx)`
}

/** The one fenced block of docs/deploy.md whose info string is `nginx file=… variant=cluster`. */
export async function clusterBlock(): Promise<string> {
  const doc = await readFile(DEPLOY_DOC, 'utf8')
  const blocks = [...doc.matchAll(/^```nginx file=\S+ variant=cluster\n([\s\S]*?)^```$/gm)]
  if (blocks.length !== 1) {
    throw new Error(`docs/deploy.md has ${blocks.length} nginx cluster blocks, not one`)
  }
  return blocks[0]![1]!
}

/** `text` with each placeholder replaced; one that no longer occurs fails, so edits show. */
function substitute(text: string, pairs: ReadonlyArray<[string, string]>): string {
  let result = text
  for (const [from, to] of pairs) {
    if (!result.includes(from)) throw new Error(`the configuration no longer contains ${from}`)
    result = result.replaceAll(from, to)
  }
  return result
}

export interface ClusterProxy {
  url: string
  stop(): Promise<void>
}

/** Starts nginx in `dir` in front of `upstreams` (host:port, one per documented instance). */
export async function startClusterNginx(dir: string, upstreams: string[]): Promise<ClusterProxy> {
  if (upstreams.length !== DOC_INSTANCES.length) {
    throw new Error(`the documented upstream has ${DOC_INSTANCES.length} servers`)
  }
  const [port, redirectPort] = [await freePort(), await freePort()]
  const site = substitute(await clusterBlock(), [
    ...DOC_INSTANCES.map((doc, i): [string, string] => [doc, upstreams[i]!]),
    ['share.example.org;', '127.0.0.1;'],
    ['listen 443 ssl http2;', `listen 127.0.0.1:${port};`],
    ['listen 80;', `listen 127.0.0.1:${redirectPort};`],
    ['    ssl_certificate     /etc/letsencrypt/live/share.example.org/fullchain.pem;\n', ''],
    ['    ssl_certificate_key /etc/letsencrypt/live/share.example.org/privkey.pem;\n', ''],
  ])
  await writeFile(join(dir, 'fileshare.conf'), site)
  // Everything nginx writes stays in its folder; as root its workers run as root too, since they
  // could not enter the temporary folder as nobody.
  const temp = (name: string) => `  ${name}_temp_path ${join(dir, name)};`
  const main = [
    process.getuid?.() === 0 ? 'user root;' : '',
    'daemon off;',
    'worker_processes 1;',
    `pid ${join(dir, 'nginx.pid')};`,
    'events { worker_connections 1024; }',
    'http {',
    '  access_log off;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp),
    `  include ${join(dir, 'fileshare.conf')};`,
    '}',
  ].join('\n')
  await writeFile(join(dir, 'nginx.conf'), main)
  const errorLog = join(dir, 'error.log')
  const child = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', errorLog], {
    stdio: ['ignore', 'ignore', 'ignore'],
  })
  child.on('error', () => undefined)
  await waitForPort(port, child, errorLog)
  return { url: `http://127.0.0.1:${port}`, stop: () => stopChild(child) }
}

async function waitForPort(port: number, child: ChildProcess, errorLog: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS
  for (;;) {
    if (await portOpen(port)) return
    if (hasExited(child) || Date.now() > deadline) {
      const log = await readFile(errorLog, 'utf8').catch(() => '')
      if (!hasExited(child)) await stopChild(child)
      throw new Error(`nginx did not start:\n${log}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
