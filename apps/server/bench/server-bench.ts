/**
 * `pnpm bench:server`: starts the built server as a child process and measures, in one run, 1 GiB
 * uploads over WebSocket and chunked HTTP, a 1 GiB download and note create+view load against
 * loopback TCP and fsync'd disk ceilings, with the server's RSS and CPU per phase. The note load
 * is measured after a warm-up of the same load (NOTE_WARMUP_SECONDS, reported but not counted):
 * a freshly started server compiles its note routes under the first seconds of load, which a
 * running service has long done. Prints a
 * table; the last line is one JSON object of every figure. BENCH_SERVER_MIB sets a smaller
 * transfer size for a quick try; BENCH_SERVER_METRICS=true runs the server with its metrics on;
 * SQLITE_DRIVER is handed to the server, which runs on the Node running the benchmark.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { readFileSync, rmSync } from 'node:fs'
import { mkdtemp, open, rm } from 'node:fs/promises'
import { Agent } from 'node:http'
import { createConnection } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { stopChild, type SpawnedServer } from '@fileshare/testing'

import {
  MiB,
  SERVER_NODE_ARGS,
  expectStatus,
  mbps,
  payload,
  round,
  send,
  startBuiltServer,
} from './lib.js'
import { noteLoad, type NoteSettings } from './note-load.js'
import { wrkMissing } from './require-wrk.js'
import {
  uploadInChunks,
  uploadOverWebSocket,
  type StoredUpload,
  type UploadSettings,
} from './uploads.js'

const SIZE = Number(process.env.BENCH_SERVER_MIB ?? 1024) * MiB
const BUFFER_SIZE = MiB
/** Chunk size and chunks in flight of the chunked transport (spec: POST /api/upload/:id/chunk). */
const CHUNK_SIZE = 10_000_000
const CHUNKS_IN_FLIGHT = 3
const NOTE_CLIENTS = 32
const NOTE_SECONDS = 10
const NOTE_WARMUP_SECONDS = 3
const SAMPLE_MS = 50
/** Linux reports process and machine CPU time in USER_HZ ticks, 100 per second. */
const TICKS_PER_SECOND = 100

const TARGETS = {
  ratio: 0.6,
  notePairsPerSec: 2500,
  noteP99Ms: 25,
  uploadPeakRssMB: 200,
}

/**
 * Peak RSS and CPU use of one phase, CPU in cores busy (1 = one core all the time): the server,
 * this benchmark with its helper processes (the discard server, wrk), the whole machine, and what
 * is left of the machine's busy time for other processes sharing it.
 */
interface PhaseStats {
  peakRssMB: number
  seconds: number
  serverCpuCores: number
  benchCpuCores: number
  machineBusyCores: number
  otherCpuCores: number
  machineIowaitCores: number
}

interface Counters {
  at: number
  serverSeconds: number
  benchSeconds: number
  machineBusySeconds: number
  machineIowaitSeconds: number
}

/** Reads a file under /proc, or undefined once the process it describes has gone. */
function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

/**
 * User plus system CPU seconds a process has used so far, 0 once it has gone; with `children`,
 * only those of its children that have exited and been waited for.
 */
function cpuSeconds(pid: number | 'self', children = false): number {
  // After the parenthesised command name, fields start at 3 (state); utime and stime are fields
  // 14 and 15, cutime and cstime 16 and 17 (proc(5)).
  const stat = readProc(`/proc/${pid}/stat`) ?? ''
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const first = children ? 13 : 11
  return (Number(fields[first] ?? 0) + Number(fields[first + 1] ?? 0)) / TICKS_PER_SECOND
}

/** Samples the server's VmRSS every 50 ms and keeps the peak and CPU time of each phase. */
class ServerMonitor {
  readonly phases = new Map<string, PhaseStats>()
  private current: { name: string; peakKiB: number; start: Counters } | undefined
  private peakKiB = 0
  private readonly timer: NodeJS.Timeout

  constructor(private readonly pid: number) {
    this.timer = setInterval(() => this.sample(), SAMPLE_MS)
  }

  get peakRssMB(): number {
    return (this.peakKiB * 1024) / 1e6
  }

  begin(name: string): void {
    this.end()
    this.current = { name, peakKiB: 0, start: this.counters() }
    this.sample()
  }

  end(): void {
    if (!this.current) return
    this.sample()
    const { name, peakKiB, start } = this.current
    const stop = this.counters()
    const seconds = (stop.at - start.at) / 1000
    const server = (stop.serverSeconds - start.serverSeconds) / seconds
    const bench = (stop.benchSeconds - start.benchSeconds) / seconds
    const busy = (stop.machineBusySeconds - start.machineBusySeconds) / seconds
    this.phases.set(name, {
      peakRssMB: round((peakKiB * 1024) / 1e6, 1),
      seconds: round(seconds, 2),
      serverCpuCores: round(server, 2),
      benchCpuCores: round(bench, 2),
      machineBusyCores: round(busy, 2),
      otherCpuCores: round(Math.max(0, busy - server - bench), 2),
      machineIowaitCores: round(
        (stop.machineIowaitSeconds - start.machineIowaitSeconds) / seconds,
        2,
      ),
    })
    this.current = undefined
  }

  stop(): void {
    this.end()
    clearInterval(this.timer)
  }

  private sample(): void {
    const status = readProc(`/proc/${this.pid}/status`)
    const kib = Number(/VmRSS:\s+(\d+) kB/.exec(status ?? '')?.[1] ?? 0)
    this.peakKiB = Math.max(this.peakKiB, kib)
    if (this.current) this.current.peakKiB = Math.max(this.current.peakKiB, kib)
  }

  private counters(): Counters {
    // The first line of /proc/stat: cpu user nice system idle iowait irq softirq steal ...
    const line = (readProc('/proc/stat') ?? '').split('\n')[0] ?? ''
    const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number)
    const total = ticks.reduce((sum, n) => sum + n, 0)
    const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0)
    return {
      at: performance.now(),
      serverSeconds: cpuSeconds(this.pid),
      // Helper processes count once they have exited: each phase waits for its own.
      benchSeconds: cpuSeconds('self') + cpuSeconds('self', true),
      machineBusySeconds: (total - idle) / TICKS_PER_SECOND,
      machineIowaitSeconds: (ticks[4] ?? 0) / TICKS_PER_SECOND,
    }
  }
}

/** Children still running, killed if the benchmark itself is interrupted. */
const children = new Set<ChildProcess>()

function track(child: ChildProcess): ChildProcess {
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
}

/** The built server on a free loopback port with a temporary DATA_DIR. */
async function startServer(dataDir: string): Promise<SpawnedServer> {
  const server = await startBuiltServer(dataDir, {
    FILE_MAX_SIZE: '2GB',
    FILE_UPLOAD_QUOTA_BYTES: '0',
    // BENCH_SERVER_METRICS=true measures the server with its metrics on (docs/benchmarks.md).
    ...(process.env.BENCH_SERVER_METRICS === 'true'
      ? { METRICS_ENABLED: 'true', METRICS_TOKEN: randomBytes(32).toString('hex') }
      : {}),
    // The SQLite drivers compared on the same Node (docs/benchmarks.md).
    ...(process.env.SQLITE_DRIVER ? { SQLITE_DRIVER: process.env.SQLITE_DRIVER } : {}),
  })
  track(server.child)
  return server
}

/** A discarding TCP server in its own process, so that sender and receiver each have a core. */
const DISCARD_SERVER = `
const server = require('node:net').createServer((socket) => {
  let bytes = 0
  socket.on('data', (data) => { bytes += data.length })
  socket.on('end', () => socket.end(String(bytes)))
})
server.listen(0, '127.0.0.1', () => console.log(server.address().port))
`

async function loopbackCeiling(): Promise<number> {
  const child = track(
    spawn(process.execPath, ['-e', DISCARD_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] }),
  )
  try {
    const [line] = (await once(child.stdout!, 'data')) as [Buffer]
    const socket = createConnection({ host: '127.0.0.1', port: Number(line.toString().trim()) })
    await once(socket, 'connect')
    const reply: Buffer[] = []
    socket.on('data', (part: Buffer) => reply.push(part))
    const start = performance.now()
    for (let offset = 0, i = 0; offset < SIZE; offset += BUFFER_SIZE, i++) {
      if (!socket.write(payload(i, BUFFER_SIZE))) await once(socket, 'drain')
    }
    socket.end()
    await once(socket, 'end')
    const ms = performance.now() - start
    const received = Number(Buffer.concat(reply).toString())
    if (received !== SIZE) throw new Error(`discard server received ${received} of ${SIZE} bytes`)
    return mbps(SIZE, ms)
  } finally {
    await stopChild(child)
  }
}

async function diskCeiling(dir: string): Promise<number> {
  const path = join(dir, 'disk-ceiling.bin')
  const file = await open(path, 'w')
  try {
    const start = performance.now()
    for (let offset = 0, i = 0; offset < SIZE; offset += BUFFER_SIZE, i++) {
      await file.write(payload(i, BUFFER_SIZE))
    }
    await file.sync()
    return mbps(SIZE, performance.now() - start)
  } finally {
    await file.close()
    await rm(path, { force: true })
  }
}

/**
 * A downloading client in its own process, like the loopback ceiling's receiver: the request
 * written by hand on a bare socket and the answer counted as that receiver counts its bytes. It
 * prints its result as one JSON line once the server has closed the connection.
 */
const DOWNLOAD_CLIENT = `
const [port, path, token] = process.argv.slice(1)
const socket = require('node:net').createConnection({ host: '127.0.0.1', port: Number(port) })
let head = Buffer.alloc(0)
let status = ''
let length = -1
let bytes = 0
let start = 0
socket.on('connect', () => {
  start = performance.now()
  socket.write('GET ' + path + ' HTTP/1.1\\r\\nHost: 127.0.0.1:' + port + '\\r\\nX-Auth-Token: ' + token +
    '\\r\\nConnection: close\\r\\n\\r\\n')
})
socket.on('data', (data) => {
  if (length >= 0) return void (bytes += data.length)
  head = Buffer.concat([head, data])
  const end = head.indexOf('\\r\\n\\r\\n')
  if (end === -1) return
  const lines = head.subarray(0, end).toString('latin1').split('\\r\\n')
  status = lines[0]
  const declared = lines.find((line) => /^content-length:/i.test(line))
  length = declared === undefined ? 0 : Number(declared.split(':')[1])
  bytes = head.length - end - 4
})
socket.on('end', () => {
  console.log(JSON.stringify({ status, length, bytes, ms: performance.now() - start }))
  socket.end()
})
`

/**
 * The download, received by DOWNLOAD_CLIENT so that the ratio sets the server against the socket
 * alone. Received in this process by node:http, the same bytes cost the client about twice the
 * server's CPU, which on two shared cores is what the download ended up measuring.
 */
async function download(port: number, upload: StoredUpload): Promise<number> {
  const path = `/api/download/${upload.id}`
  const child = track(
    spawn(process.execPath, ['-e', DOWNLOAD_CLIENT, String(port), path, upload.authToken], {
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  )
  const lines: string[] = []
  child.stdout!.on('data', (data: Buffer) => lines.push(data.toString()))
  const [code] = (await once(child, 'exit')) as [number | null]
  const result = JSON.parse(lines.join('').trim() || '{}') as {
    status?: string
    length?: number
    bytes?: number
    ms?: number
  }
  if (code !== 0 || result.status?.split(' ')[1] !== '200') {
    throw new Error(`download answered ${result.status ?? `nothing (exit code ${code})`}`)
  }
  if (result.length !== SIZE || result.bytes !== SIZE) {
    throw new Error(`download declared ${result.length} and sent ${result.bytes} of ${SIZE} bytes`)
  }
  return mbps(SIZE, result.ms!)
}

/** The first entry of a list the config response may carry, else the fallback. */
function firstOf(config: Record<string, unknown>, names: string[], fallback: number): number {
  for (const name of names) {
    const list = config[name]
    if (Array.isArray(list) && typeof list[0] === 'number') return list[0]
  }
  return fallback
}

async function readConfig(port: number): Promise<{ upload: UploadSettings; note: NoteSettings }> {
  const agent = new Agent()
  try {
    const response = await send(port, agent, { method: 'GET', path: '/api/config' })
    expectStatus('config', response, 200)
    const config = JSON.parse(response.body.toString()) as Record<string, unknown>
    const expireOptions = Array.isArray(config.expireOptions)
      ? (config.expireOptions as unknown[])
      : []
    const fileExpire = expireOptions.includes(86400)
      ? 86400
      : firstOf(config, ['expireOptions'], 86400)
    return {
      upload: {
        maxDownloads: String(firstOf(config, ['downloadOptions'], 1)),
        expireSec: String(fileExpire),
      },
      note: {
        maxViews: firstOf(config, ['noteViewOptions', 'downloadOptions'], 1),
        expireSec: firstOf(config, ['noteExpireOptions', 'expireOptions'], 86400),
      },
    }
  } finally {
    agent.destroy()
  }
}

async function run(dataDir: string) {
  const server = await startServer(dataDir)
  const monitor = new ServerMonitor(server.child.pid!)
  try {
    monitor.begin('loopbackCeiling')
    const loopbackMBps = await loopbackCeiling()
    monitor.begin('diskCeiling')
    const diskMBps = await diskCeiling(dataDir)
    const ceilingMBps = Math.min(loopbackMBps, diskMBps)
    const settings = await readConfig(server.port)

    monitor.begin('wsUpload')
    const ws = await uploadOverWebSocket(server.port, { size: SIZE, settings: settings.upload })
    monitor.begin('chunkedUpload')
    const chunked = await uploadInChunks(server.port, {
      size: SIZE,
      settings: settings.upload,
      chunkSize: CHUNK_SIZE,
      inFlight: CHUNKS_IN_FLIGHT,
    })
    monitor.begin('download')
    const downloadMBps = await download(server.port, ws)
    monitor.begin('notesWarmup')
    const notesWarmup = await noteLoad({
      port: server.port,
      settings: settings.note,
      seconds: NOTE_WARMUP_SECONDS,
      clients: NOTE_CLIENTS,
      track,
    })
    monitor.begin('notes')
    const notes = await noteLoad({
      port: server.port,
      settings: settings.note,
      seconds: NOTE_SECONDS,
      clients: NOTE_CLIENTS,
      track,
    })
    monitor.stop()

    const phases = Object.fromEntries(monitor.phases)
    const uploadPeakRssMB = Math.max(phases.wsUpload!.peakRssMB, phases.chunkedUpload!.peakRssMB)
    const wsRatio = ws.mbps / ceilingMBps
    const chunkedRatio = chunked.mbps / ceilingMBps
    const downloadRatio = downloadMBps / loopbackMBps
    return {
      sizeMiB: SIZE / MiB,
      serverNodeArgs: SERVER_NODE_ARGS,
      node: process.version,
      // The start-up line's "(SQLite on <driver>, data in …)".
      database: /\((SQLite on [^,]+|PostgreSQL),/.exec(server.output())?.[1] ?? 'unknown',
      loopbackMBps: round(loopbackMBps),
      diskFsyncMBps: round(diskMBps),
      ceilingMBps: round(ceilingMBps),
      wsUploadMBps: round(ws.mbps),
      wsUploadRatio: round(wsRatio, 3),
      wsPermessageDeflate: ws.deflate,
      chunkedUploadMBps: round(chunked.mbps),
      chunkedUploadRatio: round(chunkedRatio, 3),
      chunkedClient: 'node:http keep-alive',
      downloadMBps: round(downloadMBps),
      downloadRatio: round(downloadRatio, 3),
      notes,
      notesWarmup,
      notesSettings: settings.note,
      serverPeakRssMB: round(monitor.peakRssMB, 1),
      uploadPeakRssMB,
      phases,
      targets: {
        wsUploadRatio: wsRatio >= TARGETS.ratio,
        chunkedUploadRatio: chunkedRatio >= TARGETS.ratio,
        downloadRatio: downloadRatio >= TARGETS.ratio,
        notePairsPerSec: notes.pairsPerSec >= TARGETS.notePairsPerSec,
        noteP99Ms: notes.p99Ms < TARGETS.noteP99Ms,
        uploadPeakRssMB: uploadPeakRssMB < TARGETS.uploadPeakRssMB,
      },
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    throw new Error(`${message}\nlast server output:\n${server.output()}`, { cause: error })
  } finally {
    monitor.stop()
    await server.stop()
  }
}

function print(result: Awaited<ReturnType<typeof run>>): void {
  const verdict = (pass: boolean) => (pass ? 'PASS' : 'FAIL')
  const row = (label: string, value: string, target = '') =>
    console.log(`${label.padEnd(44)}${value.padStart(14)}  ${target}`)
  const { targets, notes } = result
  console.log(`fileshare server, ${result.sizeMiB} MiB transfers, built server on loopback`)
  console.log(`server started as: node ${[...result.serverNodeArgs, 'dist/index.js'].join(' ')}`)
  console.log(`on Node ${result.node}, ${result.database}`)
  row('loopback TCP ceiling (MB/s)', String(result.loopbackMBps))
  row('disk write + fsync ceiling (MB/s)', String(result.diskFsyncMBps))
  row('WebSocket upload (MB/s)', String(result.wsUploadMBps))
  row(
    '  / min(loopback, disk)',
    result.wsUploadRatio.toFixed(3),
    `>= 0.6 ${verdict(targets.wsUploadRatio)}`,
  )
  row('chunked HTTP upload, 3 in flight (MB/s)', String(result.chunkedUploadMBps))
  row(
    '  / min(loopback, disk)',
    result.chunkedUploadRatio.toFixed(3),
    `>= 0.6 ${verdict(targets.chunkedUploadRatio)}`,
  )
  row('download (MB/s)', String(result.downloadMBps))
  row('  / loopback', result.downloadRatio.toFixed(3), `>= 0.6 ${verdict(targets.downloadRatio)}`)
  row(
    `notes, ${notes.clients} clients: create+view pairs/s`,
    String(notes.pairsPerSec),
    `>= 2500 ${verdict(targets.notePairsPerSec)}`,
  )
  row('  requests/s', String(notes.requestsPerSec))
  row('  p50 latency (ms)', String(notes.p50Ms))
  row('  p99 latency (ms)', String(notes.p99Ms), `< 25 ${verdict(targets.noteP99Ms)}`)
  row('  errors (non-2xx or failed)', String(notes.errors))
  const warmup = result.notesWarmup
  row(
    `  warm-up before it, ${warmup.seconds} s: pairs/s, p99 (ms)`,
    `${warmup.pairsPerSec}, ${warmup.p99Ms}`,
    'not counted',
  )
  row(
    'server peak RSS during uploads (MB)',
    String(result.uploadPeakRssMB),
    `< 200 ${verdict(targets.uploadPeakRssMB)}`,
  )
  row('server peak RSS overall (MB)', String(result.serverPeakRssMB))
  const columns = ['seconds', 'peak RSS MB', 'server', 'bench', 'others', 'machine', 'iowait']
  console.log(
    `${'phase (CPU in cores busy)'.padEnd(26)}${columns.map((c) => c.padStart(12)).join('')}`,
  )
  for (const [name, p] of Object.entries(result.phases)) {
    const cells = [
      p.seconds.toFixed(2),
      p.peakRssMB.toFixed(1),
      p.serverCpuCores.toFixed(2),
      p.benchCpuCores.toFixed(2),
      p.otherCpuCores.toFixed(2),
      p.machineBusyCores.toFixed(2),
      p.machineIowaitCores.toFixed(2),
    ]
    console.log(`${name.padEnd(26)}${cells.map((c) => c.padStart(12)).join('')}`)
  }
  if (result.notesWarmup.firstError) {
    console.log(`first note error in the warm-up: ${result.notesWarmup.firstError}`)
  }
  if (notes.firstError) console.log(`first note error: ${notes.firstError}`)
  console.log(JSON.stringify(result))
}

// Before anything starts: without wrk the note load cannot run.
const wrkProblem = await wrkMissing()
if (wrkProblem !== null) {
  console.error(wrkProblem)
  process.exit(1)
}
const dataDir = await mkdtemp(join(tmpdir(), 'fileshare-bench-'))
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const child of children) child.kill('SIGKILL')
    rmSync(dataDir, { recursive: true, force: true })
    process.exit(130)
  })
}
try {
  print(await run(dataDir))
} catch (error) {
  console.error(error)
  process.exitCode = 1
} finally {
  await rm(dataDir, { recursive: true, force: true })
}
