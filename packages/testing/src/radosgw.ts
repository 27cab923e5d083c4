/**
 * A throwaway Ceph cluster for the S3 suites: one monitor, one OSD on the in-memory `memstore`
 * object store and radosgw, all on free loopback ports under a temporary folder, started without
 * systemd and stopped with the suite. radosgw checks SigV4 signatures like any S3 service, which a
 * mock such as s3rver does not.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { existsSync, rmSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

import {
  AbortMultipartUploadCommand,
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  ListBucketsCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3'

import { installUnderCi } from './debian-packages.js'
import { freePort } from './free-port.js'
import { portOpen } from './port-open.js'
import { hasExited, stopChild } from './stop-child.js'

const run = promisify(execFile)

const PACKAGES = ['radosgw', 'ceph-mon', 'ceph-osd']
const BINARIES = ['/usr/bin/radosgw', '/usr/bin/ceph-mon', '/usr/bin/ceph-osd']
const START_TIMEOUT_MS = 60_000

/** Where a running gateway takes requests, as a test run hands it to its test files. */
export interface RadosgwAddress {
  endpoint: string
  region: string
  accessKeyId: string
  secretAccessKey: string
  /** The cluster's ceph.conf, for radosgw-admin. */
  conf: string
}

export interface Radosgw extends RadosgwAddress {
  /** Milliseconds from the first command to the S3 port answering with the user made. */
  startMs: number
  /**
   * Frees the space of deleted objects now. radosgw hands their data to a garbage collector that
   * waits hours by default, and the in-memory OSD holds only a few GiB.
   */
  collectGarbage(): Promise<void>
  stop(): Promise<void>
}

/** A gateway this process started, whose daemon it may stop and start again (an S3 outage). */
export interface OwnRadosgw extends Radosgw {
  /** Stops the radosgw daemon alone; the cluster keeps its objects. */
  stopGateway(): Promise<void>
  /** Starts the daemon again on the same port and waits until it answers. */
  startGateway(): Promise<void>
}

/**
 * Why the S3 suites cannot run here, or null when they can. Under CI=true a missing radosgw is
 * installed from Debian's packages (as root) or the suite fails; outside CI it is only reported.
 */
export async function radosgwMissing(): Promise<string | null> {
  if (BINARIES.every((path) => existsSync(path))) return null
  return installUnderCi('radosgw', PACKAGES, 'the S3 suites are skipped')
}

export interface RadosgwOptions {
  /**
   * Bytes the in-memory OSD holds (4 GiB by default). Deleted objects keep their space until
   * their garbage is collected, so a long run that writes much wants more.
   */
  memstoreBytes?: number
}

export async function startRadosgw(options: RadosgwOptions = {}): Promise<OwnRadosgw> {
  const started = Date.now()
  const dir = await mkdtemp(join(tmpdir(), 'fileshare-radosgw-'))
  const children: ChildProcess[] = []
  const killAll = () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
  // A crashed test process must not leave daemons behind.
  process.once('exit', killAll)
  try {
    const [monPort, rgwPort] = [await freePort(), await freePort()]
    const conf = join(dir, 'ceph.conf')
    const fsid = randomUUID()
    for (const sub of ['mon', 'osd', 'run', 'log']) await mkdir(join(dir, sub))
    await writeFile(
      conf,
      cephConf(dir, fsid, monPort, rgwPort, options.memstoreBytes ?? 4 * 1024 ** 3),
    )
    const ceph = async (command: string, args: string[]) => {
      await run(command, ['-c', conf, ...args], { timeout: 30_000 })
    }
    const daemon = (command: string, args: string[]) => {
      const child = spawn(command, ['-c', conf, '-f', ...args], { stdio: 'ignore' })
      // A failed spawn shows as an exit code in waitForPort; the event itself is not an error.
      child.on('error', () => undefined)
      children.push(child)
      return child
    }

    await run('monmaptool', [
      '--create',
      '--addv',
      'a',
      `[v2:127.0.0.1:${monPort}]`,
      '--fsid',
      fsid,
      join(dir, 'monmap'),
    ])
    await run('ceph-authtool', [
      '--create-keyring',
      join(dir, 'keyring'),
      '--gen-key',
      '-n',
      'mon.',
      '--cap',
      'mon',
      'allow *',
    ])
    await ceph('ceph-mon', ['--mkfs', '-i', 'a', '--monmap', join(dir, 'monmap')])
    daemon('ceph-mon', ['-i', 'a'])
    // Registers OSD 0; its first start adds it to the CRUSH map by itself.
    await ceph('ceph', ['osd', 'create'])
    await ceph('ceph-osd', ['-i', '0', '--mkfs'])
    daemon('ceph-osd', ['-i', '0'])
    let gateway = daemon('radosgw', ['-n', 'client.rgw'])
    await waitForPort(rgwPort, Date.now() + START_TIMEOUT_MS, children)

    const accessKeyId = randomBytes(10).toString('hex').toUpperCase()
    const secretAccessKey = randomBytes(20).toString('hex')
    await ceph('radosgw-admin', [
      'user',
      'create',
      '--uid',
      'fileshare',
      '--display-name',
      'fileshare tests',
      '--access-key',
      accessKeyId,
      '--secret-key',
      secretAccessKey,
    ])
    const endpoint = `http://127.0.0.1:${rgwPort}`
    await warmUp(endpoint, accessKeyId, secretAccessKey)
    return {
      endpoint,
      region: 'us-east-1',
      accessKeyId,
      secretAccessKey,
      conf,
      startMs: Date.now() - started,
      async collectGarbage() {
        await ceph('radosgw-admin', ['gc', 'process', '--include-all'])
      },
      async stopGateway() {
        await stopChild(gateway)
        children.splice(children.indexOf(gateway), 1)
      },
      async startGateway() {
        if (!hasExited(gateway)) return
        gateway = daemon('radosgw', ['-n', 'client.rgw'])
        await waitForPort(rgwPort, Date.now() + START_TIMEOUT_MS, children)
      },
      async stop() {
        await stopAll(children)
        process.removeListener('exit', killAll)
        await rm(dir, { recursive: true, force: true })
      },
    }
  } catch (error) {
    await stopAll(children)
    process.removeListener('exit', killAll)
    await rm(dir, { recursive: true, force: true })
    throw error
  }
}

/**
 * A test file's view of a gateway started elsewhere (a run's global setup): its `stop` removes
 * the buckets whose names start with `bucketPrefix`, with their objects and unfinished multipart
 * uploads, and frees their space, so that the in-memory OSD does not fill over a run.
 */
export function sharedRadosgw(address: RadosgwAddress, bucketPrefix: string): Radosgw {
  const ceph = (command: string, args: string[]) =>
    run(command, ['-c', address.conf, ...args], { timeout: 30_000 })
  return {
    ...address,
    startMs: 0,
    async collectGarbage() {
      await ceph('radosgw-admin', ['gc', 'process', '--include-all'])
    },
    async stop() {
      const client = s3Client(address)
      try {
        const { Buckets = [] } = await client.send(new ListBucketsCommand({}))
        const own = Buckets.flatMap(({ Name }) => (Name?.startsWith(bucketPrefix) ? [Name] : []))
        for (const bucket of own) await removeBucket(client, bucket)
      } finally {
        client.destroy()
      }
      await ceph('radosgw-admin', ['gc', 'process', '--include-all'])
    },
  }
}

function s3Client(address: Pick<RadosgwAddress, 'endpoint' | 'accessKeyId' | 'secretAccessKey'>) {
  return new S3Client({
    endpoint: address.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: address.accessKeyId, secretAccessKey: address.secretAccessKey },
    // As the server's store: checksums only where S3 demands them (DeleteObjects, its MD5).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  })
}

/** Empties `bucket` (objects and unfinished multipart uploads) and deletes it. */
async function removeBucket(client: S3Client, bucket: string): Promise<void> {
  for (;;) {
    const { Uploads = [] } = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }))
    for (const { Key, UploadId } of Uploads) {
      await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key, UploadId }))
    }
    const { Contents = [] } = await client.send(new ListObjectsV2Command({ Bucket: bucket }))
    if (Uploads.length === 0 && Contents.length === 0) break
    if (Contents.length > 0) {
      const Objects = Contents.map(({ Key }) => ({ Key }))
      await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects } }))
    }
  }
  await client.send(new DeleteBucketCommand({ Bucket: bucket }))
}

/**
 * radosgw creates its pools on the first bucket and the first write, which takes seconds; done
 * here, that time counts as start-up rather than against the first test.
 */
async function warmUp(endpoint: string, accessKeyId: string, secretAccessKey: string) {
  const client = s3Client({ endpoint, accessKeyId, secretAccessKey })
  try {
    await client.send(new CreateBucketCommand({ Bucket: 'warm-up' }))
    await client.send(
      new PutObjectCommand({ Bucket: 'warm-up', Key: 'warm-up', Body: 'x', ContentLength: 1 }),
    )
  } finally {
    client.destroy()
  }
}

function cephConf(
  dir: string,
  fsid: string,
  monPort: number,
  rgwPort: number,
  memstoreBytes: number,
): string {
  return `[global]
fsid = ${fsid}
mon host = v2:127.0.0.1:${monPort}
mon initial members = a
public addr = 127.0.0.1
auth cluster required = none
auth service required = none
auth client required = none
# Without it the clients (radosgw among them) never finish the msgr2 handshake with the monitor.
ms mon client mode = crc
ms bind ipv6 = false
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
osd objectstore = memstore
memstore device bytes = ${memstoreBytes}
run dir = ${dir}/run
admin socket = ${dir}/run/$name.asok
log file = ${dir}/log/$name.log
pid file = ${dir}/run/$name.pid
mon data = ${dir}/mon
osd data = ${dir}/osd
keyring = ${dir}/keyring
[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:${rgwPort}
`
}

async function waitForPort(port: number, deadline: number, children: ChildProcess[]) {
  for (;;) {
    const dead = children.find(hasExited)
    if (dead) throw new Error(`${dead.spawnfile} exited with ${dead.exitCode} while starting`)
    if (await portOpen(port)) return
    if (Date.now() > deadline) throw new Error(`radosgw did not open port ${port} in time`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

/** SIGTERM in reverse start order, SIGKILL for whatever has not exited after five seconds. */
async function stopAll(children: ChildProcess[]): Promise<void> {
  for (const child of [...children].reverse()) await stopChild(child)
}
