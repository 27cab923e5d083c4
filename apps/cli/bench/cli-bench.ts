/**
 * `pnpm bench:cli`: sends and gets a 1 GiB file with the built `fileshare` command against the
 * built server (a process of its own), and prints each direction's MB/s and the command's peak
 * RSS next to the raw AES-256-GCM throughput of node:crypto measured in the same run. The file is
 * sent over each transport: the WebSocket, and chunked HTTP (`--no-websocket`). Targets: send
 * and get each at least half the raw cipher figure; peak RSS under 250 MB on every transfer.
 *
 * The targets are about the command's own plumbing, so the source file, the download and the
 * server's DATA_DIR go to /dev/shm (tmpfs) when it exists, and the disk is out of the way
 * (BENCH_CLI_DIR names another folder). For context it still measures the disk of the system's
 * temporary folder: on a disk an upload is flushed before it is answered, so no send outruns
 * that figure. Send and get run `BENCH_CLI_ROUNDS` times (3) and the best round of each counts,
 * as the raw cipher's best of three does; a peak RSS is the highest of its rounds.
 *
 * Then, `BENCH_CLI_ROUNDS` times each, the file is sent through a proxy that cuts the connection
 * every quarter of it (three drops; every 256 MiB of 1 GiB) and through the same proxy without
 * drops, back to back: the resumed send's speed against the uninterrupted one of the round of
 * the median ratio (target >= 0.8). The last line is one JSON object.
 */
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { wantedNodeFlags } from '@fileshare/server/dist/node-flags.js'
import { rawNodeGcmMBps, spawnServer } from '@fileshare/testing'
import { dropsEvery, medianDropRound, startDropProxy } from '@fileshare/testing/drop-proxy'

import { CliUser, type CliResult } from '../test/cli-runner.js'
import { MiB, sha256File, writeRandomFile } from '../test/files.js'

const SIZE = Number(process.env.BENCH_CLI_MIB ?? 1024) * MiB
const RAW_BYTES = 512 * MiB
/** The streamed cipher's record size: raw AES-GCM is measured on the same calls. */
const RECORD = MiB
const RSS_TARGET_MB = 250
const RATIO_TARGET = 0.5
const DROP_RATIO_TARGET = 0.8
const DROPS = 3
const ROUNDS = Number(process.env.BENCH_CLI_ROUNDS ?? 3)

const mbps = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000)

function rawAesGcm(): number {
  const data = randomBytes(RAW_BYTES)
  let best = 0
  for (let round = 0; round < 3; round++) best = Math.max(best, rawNodeGcmMBps(data, RECORD))
  return best
}

/**
 * What the disk takes: `SIZE` bytes written in 1 MiB writes and flushed, in `dir`. A server
 * storing blobs there flushes an upload before answering it, so `send` could not pass this;
 * printed for context next to the cipher figure.
 */
async function diskCeiling(dir: string): Promise<number> {
  const path = join(dir, 'disk-ceiling.bin')
  const block = randomBytes(RECORD)
  const start = performance.now()
  const handle = await open(path, 'w')
  try {
    for (let written = 0; written < SIZE; written += RECORD) await handle.write(block)
    await handle.sync()
  } finally {
    await handle.close()
  }
  const ms = performance.now() - start
  await rm(path)
  return mbps(SIZE, ms)
}

interface Timed {
  ms: number
  result: CliResult
}

async function timed(run: () => Promise<CliResult>): Promise<Timed> {
  const start = performance.now()
  const result = await run()
  return { ms: performance.now() - start, result }
}

/** Where the files and the server's data go: tmpfs when there is one (see the header). */
function benchRoot(): string {
  const chosen = process.env.BENCH_CLI_DIR
  if (chosen !== undefined && chosen !== '') return chosen
  return existsSync('/dev/shm') ? '/dev/shm' : tmpdir()
}

interface ServerProcess {
  url: string
  dataDir: string
  close(): Promise<void>
}

/**
 * The built server in a process of its own, as it runs in a deployment (with the Node flags
 * `pnpm start` gives it): sharing this process would add the benchmark's own heap (the raw
 * cipher's buffers) to the server's collections.
 */
async function startServerProcess(root: string): Promise<ServerProcess> {
  const dataDir = await mkdtemp(join(root, 'fileshare-cli-server-'))
  const server = await spawnServer({
    entry: fileURLToPath(import.meta.resolve('@fileshare/server/dist/index.js')),
    nodeArgs: wantedNodeFlags(),
    env: {
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'error',
      RATE_LIMIT_MAX: '0',
      FILE_MAX_SIZE: String(2 * SIZE),
    },
  })
  return {
    url: server.url,
    dataDir,
    async close() {
      await server.stop()
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * One send of `file` through a drop proxy cutting it at `dropAt`: its time, the drops made and
 * the resumes the command printed. The upload is deleted after.
 */
async function sendThroughProxy(
  serverUrl: string,
  home: string,
  file: string,
  dropAt: number[],
): Promise<Timed & { drops: number; resumes: number }> {
  const proxy = await startDropProxy({ targetPort: Number(new URL(serverUrl).port), dropAt })
  try {
    const user = new CliUser(home, proxy.url)
    const sent = await timed(() => user.ok(['send', file, '--json']))
    const { link } = JSON.parse(sent.result.stdout) as { link: string }
    await user.ok(['delete', link])
    const resumes = sent.result.stderr.match(/Connection lost; resumed at/g)?.length ?? 0
    return { ...sent, drops: proxy.drops, resumes }
  } finally {
    await proxy.close()
  }
}

async function main(): Promise<void> {
  const diskDir = tmpdir()
  const root = benchRoot()
  // The command's HOME is made under the temporary folder.
  process.env.TMPDIR = root
  const work = await mkdtemp(join(root, 'fileshare-cli-bench-'))
  const server = await startServerProcess(root)
  const user = await CliUser.create(server.url)
  try {
    const file = join(work, 'bench.bin')
    await writeRandomFile(file, SIZE)
    const expected = await sha256File(file)
    const raw = rawAesGcm()
    const disk = await diskCeiling(diskDir)
    const measured = { measurePeakRss: true }

    // Each round sends the file over both transports and gets it back; the best round of each
    // direction counts, as for the raw cipher, since a shared machine can slow any single
    // transfer. Memory is a promise for every transfer, so each peak RSS is the highest seen.
    let send: Timed | undefined
    let chunked: Timed | undefined
    let get: Timed | undefined
    let transport = ''
    const peak = { send: 0, chunked: 0, get: 0 }
    const rss = (t: Timed) => {
      if (t.result.peakRss === undefined) throw new Error('the command reported no peak RSS')
      return t.result.peakRss
    }
    for (let round = 0; round < ROUNDS; round++) {
      const sent = await timed(() => user.ok(['send', file, '--json'], measured))
      const { link, transport: used } = JSON.parse(sent.result.stdout) as {
        link: string
        transport: string
      }
      const out = join(work, `out-${round}`)
      const got = await timed(() => user.ok(['get', link, '-o', out, '--json'], measured))
      if ((await sha256File(join(out, 'bench.bin'))) !== expected) {
        throw new Error('the downloaded file differs from the one sent')
      }
      await rm(out, { recursive: true, force: true })
      // Its one download is used: the server would drop it at its next cleanup.
      await user.ok(['delete', link])
      const overHttp = await timed(() =>
        user.ok(['send', file, '--no-websocket', '--json'], measured),
      )
      const { link: httpLink, transport: httpUsed } = JSON.parse(overHttp.result.stdout) as {
        link: string
        transport: string
      }
      if (httpUsed !== 'chunks') throw new Error(`--no-websocket sent over ${httpUsed}`)
      await user.ok(['delete', httpLink])
      console.log(
        `round ${round + 1}: send ${Math.round(mbps(SIZE, sent.ms))} MB/s (${used}), ` +
          `send ${Math.round(mbps(SIZE, overHttp.ms))} MB/s (http), ` +
          `get ${Math.round(mbps(SIZE, got.ms))} MB/s; peak RSS ${Math.round(rss(sent) / 1e6)}, ` +
          `${Math.round(rss(overHttp) / 1e6)}, ${Math.round(rss(got) / 1e6)} MB`,
      )
      if (send === undefined || sent.ms < send.ms) {
        send = sent
        transport = used
      }
      if (chunked === undefined || overHttp.ms < chunked.ms) chunked = overHttp
      if (get === undefined || got.ms < get.ms) get = got
      peak.send = Math.max(peak.send, rss(sent))
      peak.chunked = Math.max(peak.chunked, rss(overHttp))
      peak.get = Math.max(peak.get, rss(got))
    }
    if (send === undefined || chunked === undefined || get === undefined)
      throw new Error('BENCH_CLI_ROUNDS must be at least 1')

    // The same path for both, so that only the drops differ: the proxy's own cost is in each.
    // Each round sends without and with drops back to back; the round of the median ratio counts.
    const rounds: Array<{ steadyMs: number; droppedMs: number }> = []
    for (let round = 0; round < ROUNDS; round++) {
      const steady = await sendThroughProxy(server.url, user.home, file, [])
      const dropped = await sendThroughProxy(
        server.url,
        user.home,
        file,
        dropsEvery(Math.floor(SIZE / (DROPS + 1)), DROPS),
      )
      if (dropped.drops !== DROPS || dropped.resumes !== DROPS) {
        throw new Error(
          `expected ${DROPS} drops and resumes, saw ${dropped.drops} and ${dropped.resumes}`,
        )
      }
      console.log(
        `proxy round ${round + 1}: ${Math.round(mbps(SIZE, steady.ms))} MB/s without drops, ` +
          `${Math.round(mbps(SIZE, dropped.ms))} MB/s with ${DROPS}`,
      )
      rounds.push({ steadyMs: steady.ms, droppedMs: dropped.ms })
    }
    const proxied = medianDropRound(rounds)

    const sendMBps = mbps(SIZE, send.ms)
    const chunkedMBps = mbps(SIZE, chunked.ms)
    const getMBps = mbps(SIZE, get.ms)
    const figures = {
      sizeMiB: SIZE / MiB,
      dataDir: server.dataDir,
      rawAesGcmMBps: Math.round(raw),
      diskFsyncMBps: Math.round(disk),
      sendToDiskRatio: Number((sendMBps / disk).toFixed(3)),
      sendMBps: Math.round(sendMBps),
      getMBps: Math.round(getMBps),
      sendChunkedMBps: Math.round(chunkedMBps),
      sendRatio: Number((sendMBps / raw).toFixed(3)),
      sendChunkedRatio: Number((chunkedMBps / raw).toFixed(3)),
      getRatio: Number((getMBps / raw).toFixed(3)),
      sendTransport: transport,
      rounds: ROUNDS,
      sendPeakRssMB: Math.round(peak.send / 1e6),
      sendChunkedPeakRssMB: Math.round(peak.chunked / 1e6),
      getPeakRssMB: Math.round(peak.get / 1e6),
      proxiedSendMBps: Math.round(mbps(SIZE, proxied.steadyMs)),
      droppedSendMBps: Math.round(mbps(SIZE, proxied.droppedMs)),
      drops: DROPS,
      dropRatio: Number((proxied.steadyMs / proxied.droppedMs).toFixed(3)),
      targets: { ratio: RATIO_TARGET, peakRssMB: RSS_TARGET_MB, dropRatio: DROP_RATIO_TARGET },
    }
    const row = (name: string, value: string, target: string) =>
      console.log(`${name.padEnd(26)} ${value.padStart(12)}   ${target}`)
    console.log(`fileshare send/get of ${SIZE / MiB} MiB against a local server`)
    console.log(`source file, download and server DATA_DIR under ${root}`)
    row('raw AES-256-GCM (node)', `${figures.rawAesGcmMBps} MB/s`, '')
    row('disk write + fsync', `${figures.diskFsyncMBps} MB/s`, `in ${diskDir} (context)`)
    row(
      `send (${transport})`,
      `${figures.sendMBps} MB/s`,
      `ratio ${figures.sendRatio} (target >= ${RATIO_TARGET})`,
    )
    row('  / disk ceiling', `${figures.sendToDiskRatio}`, '(context)')
    row(
      'send (http, chunked)',
      `${figures.sendChunkedMBps} MB/s`,
      `ratio ${figures.sendChunkedRatio} (context)`,
    )
    row('get', `${figures.getMBps} MB/s`, `ratio ${figures.getRatio} (target >= ${RATIO_TARGET})`)
    row(
      `peak RSS, send (${transport})`,
      `${figures.sendPeakRssMB} MB`,
      `target < ${RSS_TARGET_MB} MB`,
    )
    row(
      'peak RSS, send (http)',
      `${figures.sendChunkedPeakRssMB} MB`,
      `target < ${RSS_TARGET_MB} MB`,
    )
    row('peak RSS, get', `${figures.getPeakRssMB} MB`, `target < ${RSS_TARGET_MB} MB`)
    row('send through proxy', `${figures.proxiedSendMBps} MB/s`, 'no drops (context)')
    row(
      `  with ${DROPS} drops, resumed`,
      `${figures.droppedSendMBps} MB/s`,
      `ratio ${figures.dropRatio} (target >= ${DROP_RATIO_TARGET})`,
    )
    console.log(JSON.stringify(figures))
  } finally {
    await server.close()
    await rm(work, { recursive: true, force: true })
    await rm(user.home, { recursive: true, force: true })
  }
}

await main()
