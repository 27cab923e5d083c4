/**
 * nginx in front of several instances, started from the `variant=cluster` block of
 * docs/deploy.md as written there: its three upstream addresses replaced by the instances', its
 * HTTPS listener by plain HTTP on a local port (TLS is tested with the single-instance block), and
 * run in the foreground from a temporary folder.
 */
import {
  deployBlock,
  freePort,
  hasExited,
  nginxMissing,
  portOpen,
  spawnNginx,
  stopChild,
  substitute,
  type NginxProcess,
} from '@fileshare/testing'

export { nginxMissing }

/** The instances' placeholders in the documented upstream, in order. */
const DOC_INSTANCES = ['10.0.0.11:3000', '10.0.0.12:3000', '10.0.0.13:3000']
const START_TIMEOUT_MS = 10_000

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
  const site = substitute(await deployBlock('nginx', 'cluster'), [
    ...DOC_INSTANCES.map((doc, i): [string, string] => [doc, upstreams[i]!]),
    ['share.example.org;', '127.0.0.1;'],
    ['listen 443 ssl http2;', `listen 127.0.0.1:${port};`],
    ['listen 80;', `listen 127.0.0.1:${redirectPort};`],
    ['    ssl_certificate     /etc/letsencrypt/live/share.example.org/fullchain.pem;\n', ''],
    ['    ssl_certificate_key /etc/letsencrypt/live/share.example.org/privkey.pem;\n', ''],
  ])
  const nginx = await spawnNginx(dir, site)
  nginx.child.stdout!.resume()
  nginx.child.stderr!.resume()
  await waitForPort(port, nginx)
  return { url: `http://127.0.0.1:${port}`, stop: () => stopChild(nginx.child) }
}

async function waitForPort(port: number, nginx: NginxProcess): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS
  for (;;) {
    if (await portOpen(port)) return
    if (hasExited(nginx.child) || Date.now() > deadline) {
      const log = await nginx.errorLog()
      if (!hasExited(nginx.child)) await stopChild(nginx.child)
      throw new Error(`nginx did not start:\n${log}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
