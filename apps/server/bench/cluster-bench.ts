/**
 * `pnpm bench:cluster`: in one run, the note create+view load (wrk, bench/notes.lua) on one
 * instance on SQLite, one on PostgreSQL and three on PostgreSQL behind nginx (docs/deploy.md's
 * cluster block), with the CPU each costs per pair in the server and in PostgreSQL; then 1 GiB
 * uploads over WebSocket and chunked HTTP through nginx to S3 (radosgw) against the same bytes
 * sent straight to radosgw with lib-storage. Prints a table; the last line is one JSON object of
 * every figure. BENCH_CLUSTER_MIB sets a smaller upload for a quick try.
 */
import { type ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'

import { freePort, spawnServer, stopChild, type SpawnedServer } from '@fileshare/testing'
import { postgresMissing, startPostgres, type Postgres } from '@fileshare/testing/postgres'
import { radosgwMissing, startRadosgw, type Radosgw } from '@fileshare/testing/radosgw'

import { nginxMissing, startClusterNginx } from '../test/cluster-nginx.js'
import { s3Env } from '../test/s3-backend.js'
import { MiB, SERVER_ENTRY, SERVER_NODE_ARGS, round } from './lib.js'
import { noteLoad, type NoteLoad } from './note-load.js'
import { uploadDirect } from './s3-direct.js'
import { wrkMissing } from './require-wrk.js'
import { uploadInChunks, uploadOverWebSocket } from './uploads.js'

const SIZE = Number(process.env.BENCH_CLUSTER_MIB ?? 1024) * MiB
const NOTE_CLIENTS = 32
const NOTE_SECONDS = 10
const NOTE_WARMUP_SECONDS = 3
const NOTE_SETTINGS = { maxViews: 1, expireSec: 3600 }
/** The chunked transport as the apps send it (spec: POST /api/upload/:id/chunk). */
const CHUNK_SIZE = 10_000_000
const CHUNKS_IN_FLIGHT = 3
const PART_SIZE = 8 * MiB
const BUCKET = 'fileshare-bench-cluster'
const UPLOAD_SETTINGS = { maxDownloads: '1', expireSec: '86400' }
const TICKS_PER_SECOND = 100
const TARGETS = { postgresRatio: 0.7, p99Ms: 25, uploadRatio: 0.7 }

/** Children still running, killed if the benchmark itself is interrupted. */
const children = new Set<ChildProcess>()
function track(child: ChildProcess): ChildProcess {
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
}

/** User plus system CPU seconds of a process and its exited children, from /proc (proc(5)). */
function cpuSeconds(pid: number): number {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return 0
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0)
  return ticks / TICKS_PER_SECOND
}

/** The pid of every process on the machine, with its /proc/<pid>/stat fields after the name. */
function processes(): Array<{ pid: number; name: string; fields: string[] }> {
  const found = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      found.push({
        pid: Number(entry),
        name,
        fields: stat.slice(stat.lastIndexOf(')') + 2).split(' '),
      })
    } catch {
      // The process has gone.
    }
  }
  return found
}

/**
 * CPU seconds of this run's PostgreSQL: its postmaster (the `postgres` process started with
 * `-p <port>`; other clusters may run on the machine) and the backends it started.
 */
function postgresCpu(port: number): number {
  const all = processes()
  const postmaster = all.find(({ pid, name }) => {
    if (name !== 'postgres') return false
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
      return args.some((arg, i) => arg === '-p' && args[i + 1] === String(port))
    } catch {
      return false
    }
  })
  if (!postmaster) return 0
  return all
    .filter(({ pid, fields }) => pid === postmaster.pid || Number(fields[1]) === postmaster.pid)
    .reduce((sum, { pid }) => sum + cpuSeconds(pid), 0)
}

async function startInstance(dir: string, env: Record<string, string>): Promise<SpawnedServer> {
  const port = env.PORT ?? String(await freePort())
  const server = await spawnServer({
    entry: SERVER_ENTRY,
    nodeArgs: SERVER_NODE_ARGS,
    env: {
      HOST: '127.0.0.1',
      PORT: port,
      BASE_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: dir,
      LOG_LEVEL: 'error',
      RATE_LIMIT_MAX: '0',
      FILE_MAX_SIZE: '2GB',
      FILE_UPLOAD_QUOTA_BYTES: '0',
      ...env,
    },
  })
  track(server.child)
  return server
}

interface NotePhase extends NoteLoad {
  /** Server CPU milliseconds per pair, summed over the instances. */
  serverCpuMsPerPair: number
  /** PostgreSQL CPU milliseconds per pair (0 on SQLite). */
  databaseCpuMsPerPair: number
  loadAverage: number
}

/** A warm-up, then the measured note load against `port`, with the CPU it cost. */
async function notePhase(
  port: number,
  servers: SpawnedServer[],
  databasePort: number | null,
): Promise<NotePhase> {
  await noteLoad({
    port,
    settings: NOTE_SETTINGS,
    seconds: NOTE_WARMUP_SECONDS,
    clients: NOTE_CLIENTS,
    track,
  })
  const serverCpu = () => servers.reduce((sum, s) => sum + cpuSeconds(s.child.pid!), 0)
  const databaseCpu = () => (databasePort === null ? 0 : postgresCpu(databasePort))
  const [server0, database0] = [serverCpu(), databaseCpu()]
  const load = await noteLoad({
    port,
    settings: NOTE_SETTINGS,
    seconds: NOTE_SECONDS,
    clients: NOTE_CLIENTS,
    track,
  })
  const perPair = (seconds: number) => round((seconds * 1000) / Math.max(load.pairs, 1), 3)
  return {
    ...load,
    serverCpuMsPerPair: perPair(serverCpu() - server0),
    databaseCpuMsPerPair: perPair(databaseCpu() - database0),
    loadAverage: round(loadavg()[0]!, 2),
  }
}

async function run(dir: string, postgres: Postgres, gateway: Radosgw) {
  const stopAll = (servers: SpawnedServer[]) => Promise.all(servers.map((s) => s.stop()))

  const sqlite = await startInstance(join(dir, 'sqlite'), {})
  const sqliteNotes = await notePhase(sqlite.port, [sqlite], null).finally(() => stopAll([sqlite]))

  const single = await startInstance(join(dir, 'postgres'), {
    DATABASE_URL: await postgres.createDatabase(),
  })
  const postgresNotes = await notePhase(single.port, [single], postgres.port).finally(() =>
    stopAll([single]),
  )

  // The cluster: instance ports first, so that each can name nginx's address as its BASE_URL.
  const ports = [await freePort(), await freePort(), await freePort()]
  const proxy = await startClusterNginx(
    dir,
    ports.map((port) => `127.0.0.1:${port}`),
  )
  const clusterEnv = {
    DATABASE_URL: await postgres.createDatabase(),
    ...s3Env(gateway, BUCKET),
    S3_PART_SIZE: String(PART_SIZE),
    BASE_URL: proxy.url,
    TRUST_PROXY: 'true',
    FILE_CHUNK_MAX_SIZE: String(CHUNK_SIZE),
    FILE_UPLOAD_CONCURRENT_CHUNKS: String(CHUNKS_IN_FLIGHT),
  }
  const cluster: SpawnedServer[] = []
  try {
    for (const [i, port] of ports.entries()) {
      cluster.push(
        await startInstance(join(dir, `cluster-${i}`), { ...clusterEnv, PORT: String(port) }),
      )
    }
    const proxyPort = Number(new URL(proxy.url).port)
    const clusterNotes = await notePhase(proxyPort, cluster, postgres.port)

    // radosgw creates its data pool on the first write; that must not count against anyone.
    await uploadDirect(gateway, { bucket: BUCKET, partSize: PART_SIZE, size: 4 * PART_SIZE })
    const direct = await uploadDirect(gateway, { bucket: BUCKET, partSize: PART_SIZE, size: SIZE })
    await gateway.collectGarbage()
    const ws = await uploadOverWebSocket(proxyPort, { size: SIZE, settings: UPLOAD_SETTINGS })
    await gateway.collectGarbage()
    // Round robin sends the chunks of one upload to every instance, which needs upload sessions
    // shared in the database; until then the phase reports why it failed.
    const chunked = await uploadInChunks(proxyPort, {
      size: SIZE,
      settings: UPLOAD_SETTINGS,
      chunkSize: CHUNK_SIZE,
      inFlight: CHUNKS_IN_FLIGHT,
    }).then(
      (upload) => ({ mbps: upload.mbps, error: null }),
      (error: unknown) => ({ mbps: null, error: String(error) }),
    )
    const ratio = (value: number | null) => (value === null ? null : round(value / direct, 2))
    return {
      notes: { sqlite: sqliteNotes, postgres: postgresNotes, cluster: clusterNotes },
      uploads: {
        sizeMiB: SIZE / MiB,
        directMBps: round(direct, 1),
        webSocketMBps: round(ws.mbps, 1),
        chunkedMBps: chunked.mbps === null ? null : round(chunked.mbps, 1),
        chunkedError: chunked.error,
        webSocketRatio: ratio(ws.mbps)!,
        chunkedRatio: ratio(chunked.mbps),
        loadAverage: round(loadavg()[0]!, 2),
      },
    }
  } finally {
    await stopAll(cluster)
    await proxy.stop()
  }
}

async function main() {
  const missing =
    (await wrkMissing()) ?? nginxMissing() ?? (await postgresMissing()) ?? (await radosgwMissing())
  if (missing) {
    console.error(missing)
    process.exitCode = 1
    return
  }
  const dir = await mkdtemp(join(tmpdir(), 'fileshare-bench-cluster-'))
  const [postgres, gateway] = await Promise.all([startPostgres(), startRadosgw()])
  try {
    const result = await run(dir, postgres, gateway)
    const { sqlite, postgres: pg, cluster } = result.notes
    const postgresRatio = round(pg.pairsPerSec / sqlite.pairsPerSec, 2)
    const row = (name: string, notes: NotePhase) =>
      console.log(
        `${name.padEnd(34)} ${String(notes.pairsPerSec).padStart(6)} pairs/s  p99 ` +
          `${String(notes.p99Ms).padStart(6)} ms  server ${notes.serverCpuMsPerPair} ms/pair  ` +
          `PostgreSQL ${notes.databaseCpuMsPerPair} ms/pair  errors ${notes.errors}  ` +
          `load ${notes.loadAverage}`,
      )
    row('notes, one instance, SQLite', sqlite)
    row('notes, one instance, PostgreSQL', pg)
    row('notes, three instances, nginx', cluster)
    const u = result.uploads
    console.log(`upload ${u.sizeMiB} MiB direct to S3 (lib-storage)  ${u.directMBps} MB/s`)
    console.log(`upload WebSocket via nginx  ${u.webSocketMBps} MB/s (${u.webSocketRatio})`)
    console.log(
      `upload chunked via nginx    ` +
        (u.chunkedError ?? `${u.chunkedMBps} MB/s (${u.chunkedRatio})`),
    )
    const targets = {
      postgresRatio: { value: postgresRatio, target: TARGETS.postgresRatio },
      postgresP99Ms: { value: pg.p99Ms, target: TARGETS.p99Ms },
      webSocketRatio: { value: u.webSocketRatio, target: TARGETS.uploadRatio },
      chunkedRatio: { value: u.chunkedRatio, target: TARGETS.uploadRatio },
    }
    const met =
      postgresRatio >= TARGETS.postgresRatio &&
      pg.p99Ms < TARGETS.p99Ms &&
      u.webSocketRatio >= TARGETS.uploadRatio &&
      (u.chunkedRatio ?? 0) >= TARGETS.uploadRatio
    console.log(JSON.stringify({ ...result, postgresRatio, targets, met, cpus: cpus().length }))
  } finally {
    for (const child of children) await stopChild(child)
    await Promise.all([postgres.stop(), gateway.stop()])
    await rm(dir, { recursive: true, force: true })
  }
}

await main()
