/**
 * nginx run in the foreground from a folder of its own, around one site configuration: the main
 * configuration written here keeps every file nginx writes (pid, temporary bodies, error log) in
 * that folder.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

const NGINX = '/usr/sbin/nginx'

/** Why nginx cannot run here, or null when it can (installed by .ci/run under CI=true). */
export function nginxMissing(): string | null {
  return existsSync(NGINX) ? null : `${NGINX} is not installed (Debian package nginx)`
}

export interface NginxProcess {
  child: ChildProcess
  /** The error log's text so far, for a failure's message. */
  errorLog(): Promise<string>
}

/** Writes `site` and a main configuration including it into `dir`, and starts nginx on them. */
export async function spawnNginx(
  dir: string,
  site: string,
  o: { workerConnections?: number } = {},
): Promise<NginxProcess> {
  await writeFile(join(dir, 'fileshare.conf'), site)
  // As root its workers run as root too, since they could not enter the temporary folder as nobody.
  const temp = (name: string) => `  ${name}_temp_path ${join(dir, name)};`
  const main = [
    process.getuid?.() === 0 ? 'user root;' : '',
    'daemon off;',
    'worker_processes 1;',
    `pid ${join(dir, 'nginx.pid')};`,
    `events { worker_connections ${o.workerConnections ?? 1024}; }`,
    'http {',
    '  access_log off;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp),
    `  include ${join(dir, 'fileshare.conf')};`,
    '}',
  ].join('\n')
  await writeFile(join(dir, 'nginx.conf'), main)
  const log = join(dir, 'error.log')
  const child = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', log], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.on('error', () => undefined)
  return { child, errorLog: () => readFile(log, 'utf8').catch(() => '') }
}
