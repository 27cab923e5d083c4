/**
 * The reverse proxies of docs/deploy.md, started from the configuration blocks as written there:
 * each block is taken by its info string (`nginx file=…`), its placeholders replaced by a local
 * address, ports and a throwaway certificate, and the proxy run in the foreground from a
 * temporary folder.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { readFile, writeFile, mkdir } from 'node:fs/promises'
import { request } from 'node:https'
import { join } from 'node:path'
import { promisify } from 'node:util'

import { deployBlock, hasExited, spawnNginx, stopChild, substitute } from '@fileshare/testing'

const run = promisify(execFile)

/** The placeholders of the documented configurations. */
const DOC_UPSTREAM = '127.0.0.1:3000'
const DOC_HOST = 'share.example.org'
const DOC_CERT = `/etc/letsencrypt/live/${DOC_HOST}/fullchain.pem`
const DOC_KEY = `/etc/letsencrypt/live/${DOC_HOST}/privkey.pem`

export interface Certificate {
  cert: string
  key: string
}

/** A self-signed certificate for 127.0.0.1 and localhost, valid for a day. */
export async function throwawayCertificate(dir: string): Promise<Certificate> {
  const cert = join(dir, 'cert.pem')
  const key = join(dir, 'key.pem')
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=fileshare test',
    '-addext',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout',
    key,
    '-out',
    cert,
  ])
  return { cert, key }
}

export interface ProxySetup {
  /** A folder of the proxy's own. */
  dir: string
  upstream: string
  /** The HTTPS port, and a port for the plain-HTTP redirect where the configuration has one. */
  port: number
  redirectPort: number
  certificate: Certificate
}

export interface RunningProxy {
  stop(): Promise<void>
}

export interface ReverseProxy {
  name: string
  /** The program that must be installed (Debian package of the same name). */
  program: string
  start(setup: ProxySetup): Promise<RunningProxy>
}

/** The certificate paths and the upstream, the same in every configuration. */
const placeholders = (s: ProxySetup): Array<[string, string]> => [
  [DOC_CERT, s.certificate.cert],
  [DOC_KEY, s.certificate.key],
  [DOC_UPSTREAM, s.upstream],
]

export const NGINX: ReverseProxy = {
  name: 'nginx',
  program: 'nginx',
  async start(s) {
    const site = substitute(await deployBlock('nginx'), [
      ...placeholders(s),
      [DOC_HOST, '127.0.0.1'],
      ['listen 443 ', `listen 127.0.0.1:${s.port} `],
      ['listen 80;', `listen 127.0.0.1:${s.redirectPort};`],
    ])
    const nginx = await spawnNginx(s.dir, site, { workerConnections: 256 })
    return started(nginx.child, s, nginx.errorLog)
  },
}

export const CADDY: ReverseProxy = {
  name: 'Caddy',
  program: 'caddy',
  async start(s) {
    const site = substitute(await deployBlock('caddyfile'), [
      ...placeholders(s),
      [`${DOC_HOST} {`, `127.0.0.1:${s.port} {`],
    ])
    // Global options of this run only: no admin endpoint, no port 80, nothing outside its folder.
    const global = [
      '{',
      '\tadmin off',
      '\tauto_https disable_redirects',
      '\tskip_install_trust',
      `\tstorage file_system ${join(s.dir, 'data')}`,
      '}',
    ].join('\n')
    const caddyfile = join(s.dir, 'Caddyfile')
    await writeFile(caddyfile, `${global}\n\n${site}`)
    await mkdir(join(s.dir, 'home'))
    const child = spawn('caddy', ['run', '--config', caddyfile, '--adapter', 'caddyfile'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: join(s.dir, 'home'),
        XDG_CONFIG_HOME: join(s.dir, 'home'),
        XDG_DATA_HOME: join(s.dir, 'home'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    return started(child, s, () => Promise.resolve(''))
  },
}

/** Whether `program` is on PATH. */
export async function installed(program: string): Promise<boolean> {
  try {
    await run('sh', ['-c', `command -v ${program}`])
    return true
  } catch {
    return false
  }
}

/** Resolves once the proxy answers the server's health check; stops it and throws otherwise. */
async function started(
  child: ChildProcess,
  s: ProxySetup,
  log: () => Promise<string>,
): Promise<RunningProxy> {
  let output = ''
  child.stdout!.on('data', (data: Buffer) => (output += data.toString()))
  child.stderr!.on('data', (data: Buffer) => (output += data.toString()))
  const ca = await readFile(s.certificate.cert)
  const deadline = Date.now() + 20_000
  for (;;) {
    if (hasExited(child)) {
      throw new Error(`the proxy exited at start:\n${output}\n${await log()}`)
    }
    const status = await getThrough(s.port, '/api/health', { ca }).then(
      (answer) => answer.status,
      () => 0,
    )
    if (status === 200) return { stop: () => stopChild(child) }
    if (Date.now() > deadline) {
      await stopChild(child)
      throw new Error(
        `the proxy did not answer in time (last ${status}):\n${output}\n${await log()}`,
      )
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

export interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
}

/** A GET to the proxy on 127.0.0.1, optionally from another loopback address. */
export function getThrough(
  port: number,
  path: string,
  o: { ca: Buffer; localAddress?: string; headers?: Record<string, string> },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        ca: o.ca,
        agent: false,
        headers: o.headers,
        ...(o.localAddress !== undefined ? { localAddress: o.localAddress } : {}),
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }))
      },
    )
    req.on('error', reject)
    req.end()
  })
}
