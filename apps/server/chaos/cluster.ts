/**
 * The cluster a chaos run works on and breaks: PostgreSQL, radosgw, three built server instances
 * on fixed ports behind nginx (docs/deploy.md's cluster block), and a proxy in front of nginx
 * whose connections can be cut. It carries out the faults (SIGKILL, SIGTERM, SIGSTOP of an
 * instance, PostgreSQL and radosgw stopped and started) and keeps what the invariants read: each
 * instance's whole log, its exits the schedule did not ask for, and its peak resident set.
 * May touch: child processes it starts, files under its temporary folder, /proc of its instances.
 */
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs'
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

import { freePort, hasExited, spawnServer, stopChild, type SpawnedServer } from '@fileshare/testing'
import { startDropProxy, type DropProxy } from '@fileshare/testing/drop-proxy'
import { startPostgres } from '@fileshare/testing/postgres'
import { startRadosgw } from '@fileshare/testing/radosgw'

import { SERVER_ENTRY, SERVER_NODE_ARGS } from '../bench/lib.js'
import { startClusterNginx, type ClusterProxy } from '../test/cluster-nginx.js'
import { s3Env } from '../test/s3-backend.js'
import type { FaultKind } from './schedule.js'

const INSTANCES = 3
/** How long an instance that cannot start (its database away) is tried again. */
const START_RETRY_MS = 90_000
/** Longer than the server's own shutdown takes; a graceful stop past it is a finding. */
const GRACEFUL_STOP_MS = 45_000
const RSS_SAMPLE_MS = 250

export interface Instance {
  index: number
  port: number
  dataDir: string
  server: SpawnedServer | null
  /** Set while the schedule stops the process, so that its exit is not a finding. */
  stopping: boolean
  /** Highest VmHWM seen of any of its processes, in bytes. */
  peakRss: number
  log: WriteStream
  logPath: string
}

/** A bucket the invariants list, and how to reach it. */
export interface BucketAccess {
  endpoint: string
  region: string
  bucket: string
  accessKeyId: string
  secretAccessKey: string
}

/** What a chaos run works on: the fixture started here, or a staging cluster (chaos/target.ts). */
export interface ChaosCluster {
  /** Where clients go. */
  url: string
  /** The database the invariants read; null when not given (a staging cluster's choice). */
  databaseUrl: string | null
  storage: BucketAccess | null
  /** The instances whose processes are watched (exits, logs, peak memory); none on a target. */
  instances: Instance[]
  /** Exits and failed stops the schedule did not ask for, in words. */
  unexpected: string[]
  /** Whether this cluster can carry out faults of `kind`; the schedule leaves out the others. */
  can(kind: FaultKind): boolean
  /** Frees the space of deleted objects, where the store needs it. */
  collectGarbage(): Promise<void>
  kill(index: number, holdMs: number): Promise<void>
  term(index: number, holdMs: number): Promise<void>
  pause(index: number, holdMs: number): Promise<void>
  restartPostgres(holdMs: number): Promise<void>
  restartStorage(holdMs: number): Promise<void>
  cut(): void
  /** The lines of every instance's log so far. */
  logs(): string[]
  stop(): Promise<void>
}

export interface ClusterSettings {
  /** Server settings on top of the cluster's own. */
  env: Record<string, string>
  /** Where the instances' logs are copied when the cluster stops. */
  logsDir: string
  /** What radosgw's in-memory OSD holds. */
  storeBytes: number
}

/** VmHWM of `pid` in bytes, or 0 when it has gone. */
function peakRssOf(pid: number | undefined): number {
  if (pid === undefined) return 0
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kib = /VmHWM:\s+(\d+) kB/.exec(status)?.[1]
    return kib === undefined ? 0 : Number(kib) * 1024
  } catch {
    return 0
  }
}

export async function startChaosCluster(settings: ClusterSettings): Promise<ChaosCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'fileshare-chaos-'))
  const [postgres, gateway] = await Promise.all([
    startPostgres(),
    startRadosgw({ memstoreBytes: settings.storeBytes }),
  ])
  const stopParts = async () => {
    await Promise.all([postgres.stop(), gateway.stop()])
    await rm(dir, { recursive: true, force: true })
  }
  let proxy: DropProxy | undefined
  let nginx: ClusterProxy | undefined
  const instances: Instance[] = []
  const unexpected: string[] = []
  try {
    const databaseUrl = await postgres.createDatabase()
    const storage = s3Env(gateway)
    const ports = await Promise.all(Array.from({ length: INSTANCES }, () => freePort()))
    const proxyPort = await freePort()
    const env = {
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_SIZE: '5',
      ...storage,
      TRUST_PROXY: 'true',
      BASE_URL: `http://127.0.0.1:${proxyPort}`,
      LOG_LEVEL: 'info',
      RATE_LIMIT_MAX: '0',
      ...settings.env,
    }
    for (let index = 0; index < INSTANCES; index++) {
      const dataDir = join(dir, `instance-${index}`)
      const logPath = join(dir, `instance-${index}.log`)
      instances.push({
        index,
        port: ports[index]!,
        dataDir,
        server: null,
        stopping: false,
        peakRss: 0,
        log: createWriteStream(logPath, { flags: 'a' }),
        logPath,
      })
    }
    // One after the other, so that the migrations' lock is not what the start waits on.
    for (const instance of instances) await launch(instance, env, unexpected, settings.logsDir)
    nginx = await startClusterNginx(
      dir,
      instances.map((instance) => `127.0.0.1:${instance.port}`),
    )
    proxy = await startDropProxy({
      targetPort: Number(new URL(nginx.url).port),
      dropAt: [],
      port: proxyPort,
    })
    const sampler = setInterval(() => {
      for (const instance of instances) {
        instance.peakRss = Math.max(instance.peakRss, peakRssOf(instance.server?.child.pid))
      }
    }, RSS_SAMPLE_MS)
    const stopped = (instance: Instance, signal: string) => async () => {
      instance.peakRss = Math.max(instance.peakRss, peakRssOf(instance.server?.child.pid))
      instance.stopping = true
      mark(instance, signal)
    }
    const restart = async (instance: Instance, holdMs: number) => {
      await sleep(holdMs)
      await launch(instance, env, unexpected, settings.logsDir)
    }
    const front = proxy
    const frontNginx = nginx
    return {
      url: front.url,
      databaseUrl,
      storage: { ...gateway, bucket: storage.S3_BUCKET! },
      instances,
      unexpected,
      can: () => true,
      collectGarbage: () => gateway.collectGarbage(),
      async kill(index, holdMs) {
        const instance = instances[index]!
        if (!instance.server) return
        await stopped(instance, 'SIGKILL')()
        instance.server.child.kill('SIGKILL')
        await instance.server.exited
        await restart(instance, holdMs)
      },
      async term(index, holdMs) {
        const instance = instances[index]!
        if (!instance.server) return
        await stopped(instance, 'SIGTERM')()
        const { child, exited } = instance.server
        child.kill('SIGTERM')
        const ended = await Promise.race([exited, sleep(GRACEFUL_STOP_MS).then(() => null)])
        if (ended === null) {
          unexpected.push(`instance ${index} did not stop within ${GRACEFUL_STOP_MS} ms of SIGTERM`)
          // Node's diagnostic report (its handles and stack) shows what the stop waits on.
          child.kill('SIGUSR2')
          await sleep(2_000)
          child.kill('SIGKILL')
          await exited
        } else if (ended.code !== 0) {
          unexpected.push(
            `instance ${index} ended a graceful stop with ${ended.code ?? ended.signal}`,
          )
        }
        await restart(instance, holdMs)
      },
      async pause(index, holdMs) {
        const child = instances[index]!.server?.child
        if (!child || hasExited(child)) return
        mark(instances[index]!, 'SIGSTOP')
        child.kill('SIGSTOP')
        await sleep(holdMs)
        child.kill('SIGCONT')
        mark(instances[index]!, 'SIGCONT')
      },
      async restartPostgres(holdMs) {
        await postgres.pause()
        await sleep(holdMs)
        await postgres.start()
      },
      async restartStorage(holdMs) {
        await gateway.stopGateway()
        await sleep(holdMs)
        await gateway.startGateway()
      },
      cut: () => front.cut(),
      logs() {
        return instances.flatMap((instance) =>
          readFileSync(instance.logPath, 'utf8')
            .split('\n')
            .map((line) => `instance ${instance.index}: ${line}`),
        )
      },
      async stop() {
        clearInterval(sampler)
        await front.close()
        await frontNginx.stop()
        for (const instance of instances) {
          instance.stopping = true
          // SIGCONT first: a paused process does not act on SIGTERM.
          instance.server?.child.kill('SIGCONT')
          if (instance.server) await stopChild(instance.server.child)
          await new Promise((resolve) => instance.log.end(resolve))
        }
        await mkdir(settings.logsDir, { recursive: true })
        for (const instance of instances) {
          await copyFile(instance.logPath, join(settings.logsDir, `instance-${instance.index}.log`))
        }
        await stopParts()
      },
    }
  } catch (error) {
    await proxy?.close()
    await nginx?.stop()
    for (const instance of instances) {
      instance.stopping = true
      if (instance.server && !hasExited(instance.server.child))
        instance.server.child.kill('SIGKILL')
    }
    await stopParts()
    throw error
  }
}

/** Notes a fault in the instance's log, so that its lines can be read against it. */
function mark(instance: Instance, what: string): void {
  instance.log.write(`\n[chaos ${new Date().toISOString()}] ${what}\n`)
}

/**
 * Starts `instance` on its port, trying again while it cannot (PostgreSQL or radosgw away at that
 * moment); its output goes to its log, and an exit it was not told of is recorded.
 */
async function launch(
  instance: Instance,
  env: Record<string, string>,
  unexpected: string[],
  reportsDir: string,
): Promise<void> {
  const deadline = Date.now() + START_RETRY_MS
  for (let attempt = 1; ; attempt++) {
    try {
      const server = await spawnServer({
        entry: SERVER_ENTRY,
        nodeArgs: [...SERVER_NODE_ARGS, '--report-on-signal', `--report-directory=${reportsDir}`],
        env: { ...env, PORT: String(instance.port), DATA_DIR: instance.dataDir },
      })
      instance.log.write(server.output())
      server.child.stdout!.on('data', (data: Buffer) => instance.log.write(data))
      server.child.stderr!.on('data', (data: Buffer) => instance.log.write(data))
      instance.server = server
      instance.stopping = false
      void server.exited.then(({ code, signal }) => {
        if (!instance.stopping) {
          unexpected.push(`instance ${instance.index} exited (${code ?? signal}) unasked`)
        }
      })
      return
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error)
      instance.log.write(`\n[chaos] start attempt ${attempt} failed: ${why}\n`)
      if (Date.now() > deadline) {
        throw new Error(`instance ${instance.index} did not start: ${why}`, { cause: error })
      }
      await sleep(1_000)
    }
  }
}
