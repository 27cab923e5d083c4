/**
 * `pnpm bench:web`: starts the server with the built web app, launches Chromium, and measures in
 * one run: the upload of a 256 MiB file through the page (from the click on Upload to the share
 * link), its download through the page to disk (from the click on Download to the browser's
 * "completed"), and raw WebCrypto AES-256-GCM in the same browser (1 MiB calls, four in flight),
 * encrypting and decrypting. For context, the same transfers with the cipher and the client code
 * taken out (bench/references.ts): the file sent as it is over the upload WebSocket from the
 * page, that upload downloaded and saved through the service worker, plus a chunked upload of
 * zeros and a save of zeros made in the page; they show what the browser and the server manage
 * on this machine before any encryption. Prints a table with each transfer's ratio to the raw
 * cipher of its direction (target at least 0.4) and to the same transfer without the cipher; the
 * last line is one JSON object of every figure.
 * BENCH_WEB_MIB sets another size; BENCH_WEB_THREADS=1 prints each step's CPU time per thread of
 * the browser and the server (bench/threads.ts). Then a 1 GiB upload (BENCH_WEB_DROP_MIB) through
 * a proxy that cuts the connection every 256 MiB, resumed by the page, against the same upload
 * through the proxy without drops (bench/drop-run.ts; target at least 0.8), in
 * `BENCH_WEB_DROP_ROUNDS` (3) rounds of which the one of the median ratio counts. Last, a
 * 1 GiB WebM (BENCH_WEB_MEDIA_MIB) played on the download page (bench/media-run.ts: first frame
 * under 1 s, a seek to two thirds under 0.5 s, under 5 % of the file fetched before the first
 * frame, one download counted) and a 20 MB image fetched, decrypted and decoded in the page
 * (bench/image-run.ts, under 1 s).
 *
 * The server runs in this process, so this process runs with the Node flags the server is
 * started with (`pnpm start`, apps/server/src/node-flags.ts): started without them, it starts
 * itself again with them. Without them V8's collector threads, busy with the buffers of the
 * upload, take CPU the browser needs on a machine of two cores.
 *
 * Chromium is driven over a bare DevTools connection (bench/cdp.ts), not playwright: playwright
 * has Chromium copy every request body and WebSocket frame into its network events, which caps
 * uploads from a page at a fraction of their real speed.
 */
import { spawnSync } from 'node:child_process'
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { WS_FRAME_MAX_BYTES, WS_MAX_BUFFERED_BYTES } from '@fileshare/protocol'
import { missingNodeFlags, wantedNodeFlags } from '@fileshare/server/dist/node-flags.js'
import { medianDropRound } from '@fileshare/testing/drop-proxy'

import { sha256File, tempDir, writePseudoRandomFile } from '../e2e/files.js'
import { startE2eServer } from '../e2e/server.js'
import { evaluate, findByRole, launchRawBrowser, waitForField, type Cdp } from './cdp.js'
import { DROPS, measureDropRun, type DropRun } from './drop-run.js'
import { benchImage, measureImageRun } from './image-run.js'
import { benchVideo, measureMediaRun } from './media-run.js'
import { click, pickFile, readLink } from './page-upload.js'
import {
  PLAIN_CHUNKED_UPLOAD,
  PLAIN_DOWNLOAD,
  PLAIN_FILE_WS_UPLOAD,
  PLAIN_SAVE,
  RAW_CIPHER,
} from './references.js'
import { threadTimes } from './threads.js'

if (missingNodeFlags(process.execArgv).length > 0) {
  // process.execArgv keeps tsx's loader options, so the new process runs this file the same way.
  const again = spawnSync(
    process.execPath,
    [...wantedNodeFlags(), ...process.execArgv, ...process.argv.slice(1)],
    { stdio: 'inherit' },
  )
  process.exit(again.status ?? 1)
}

const MiB = 1024 * 1024
const SIZE = Number(process.env.BENCH_WEB_MIB ?? 256) * MiB
const CALL_SIZE = MiB
const IN_FLIGHT = 4
const TARGET_RATIO = 0.4
const DROP_SIZE = Number(process.env.BENCH_WEB_DROP_MIB ?? 1024) * MiB
const DROP_RATIO_TARGET = 0.8
const DROP_ROUNDS = Number(process.env.BENCH_WEB_DROP_ROUNDS ?? 3)
const TIMEOUT_MS = 3 * 60_000
const MEDIA_SIZE = Number(process.env.BENCH_WEB_MEDIA_MIB ?? 1024) * MiB
const FIRST_FRAME_TARGET_MS = 1000
const SEEK_TARGET_MS = 500
const FETCHED_BEFORE_FRAME_TARGET = 0.05
const IMAGE_TARGET_MS = 1000

const mbps = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000)
const round = (n: number, digits = 1) => Number(n.toFixed(digits))

/**
 * The drop run `DROP_ROUNDS` times (each with and without drops, back to back): the round of the
 * median ratio counts, so that neither a burst of load from elsewhere nor the luckiest random
 * waits before the resumes decide it.
 */
async function medianDropRun(measure: () => Promise<DropRun>): Promise<DropRun> {
  const rounds: DropRun[] = []
  while (rounds.length < DROP_ROUNDS) {
    const run = await measure()
    console.log(
      `drop round ${rounds.length + 1}: ${round(mbps(DROP_SIZE, run.steadyMs))} MB/s without drops, ` +
        `${round(mbps(DROP_SIZE, run.droppedMs))} MB/s with ${DROPS}`,
    )
    rounds.push(run)
  }
  return medianDropRound(rounds)
}

/** Runs `call`, a page function of references.ts, with `args` in `page`; answers its result. */
function inPage<T>(cdp: Cdp, page: string, call: string, args: object): Promise<T> {
  return evaluate<T>(cdp, page, `(${call})(${JSON.stringify(args)})`)
}

function rawCipher(cdp: Cdp, page: string, mode: 'encrypt' | 'decrypt'): Promise<number> {
  const args = { total: SIZE, callSize: CALL_SIZE, inFlight: IN_FLIGHT, mode }
  return inPage<number>(cdp, page, RAW_CIPHER, args)
}

/**
 * BENCH_WEB_PROFILE=<dir>: records a CPU profile of every dedicated worker of `page` (where the
 * client core runs), of the page itself and of the service worker; `stop` writes them as .cpuprofile files (open them
 * in Chromium's DevTools).
 */
async function profileWorkers(cdp: Cdp, page: string, label: string) {
  const dir = process.env.BENCH_WEB_PROFILE
  if (!dir) return async () => undefined
  const sessions: Array<{ id: string; name: string }> = [{ id: page, name: 'page' }]
  const off = cdp.on('Target.attachedToTarget', (params) => {
    const info = params.targetInfo as { type: string; url: string }
    const id = params.sessionId as string
    if (info.type !== 'worker') return
    sessions.push({ id, name: 'worker' })
    void (async () => {
      await cdp.send('Profiler.enable', {}, id)
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 }, id)
      await cdp.send('Profiler.start', {}, id)
      // The transfer worker's own workers (the record cipher pool) are profiled too.
      await cdp.send(
        'Target.setAutoAttach',
        { autoAttach: true, waitForDebuggerOnStart: false, flatten: true },
        id,
      )
      await cdp.send('Runtime.runIfWaitingForDebugger', {}, id)
    })()
  })
  await cdp.send('Profiler.enable', {}, page)
  await cdp.send('Profiler.start', {}, page)
  // The download service worker runs in the browser's target list, not under the page.
  const { targetInfos } = await cdp.send<{
    targetInfos: Array<{ targetId: string; type: string }>
  }>('Target.getTargets')
  for (const target of targetInfos.filter((t) => t.type === 'service_worker')) {
    const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', {
      targetId: target.targetId,
      flatten: true,
    })
    await cdp.send('Profiler.enable', {}, sessionId)
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 }, sessionId)
    await cdp.send('Profiler.start', {}, sessionId)
    sessions.push({ id: sessionId, name: 'service-worker' })
  }
  await cdp.send(
    'Target.setAutoAttach',
    { autoAttach: true, waitForDebuggerOnStart: false, flatten: true },
    page,
  )
  return async () => {
    off()
    await mkdir(dir, { recursive: true })
    for (const [n, { id, name }] of sessions.entries()) {
      const { profile } = await cdp.send<{ profile: unknown }>('Profiler.stop', {}, id)
      await writeFile(join(dir, `${label}-${name}-${n}.cpuprofile`), JSON.stringify(profile))
    }
  }
}

/**
 * Times a browser download that `start` begins: from the call until the browser reports it
 * ended, which must be completed (`Browser.setDownloadBehavior` has sent it to `downloads`).
 */
async function timedDownload(cdp: Cdp, label: string, start: () => Promise<unknown>) {
  const ended = cdp.waitFor('Browser.downloadProgress', (p) => p.state !== 'inProgress')
  const threads = await threadTimes(label)
  const begun = performance.now()
  await start()
  const outcome = await Promise.race([
    ended,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${label} did not end in time`)), TIMEOUT_MS).unref(),
    ),
  ])
  const ms = performance.now() - begun
  await threads()
  if (outcome.state !== 'completed') throw new Error(`${label} ended ${String(outcome.state)}`)
  return ms
}

/** A hidden file input holding `path` in `page`; answers its element id. */
async function fileInput(cdp: Cdp, page: string, path: string): Promise<string> {
  const id = 'bench-file'
  const { result } = await cdp.send<{ result: { objectId: string } }>(
    'Runtime.evaluate',
    {
      expression: `(() => { const input = document.createElement('input'); input.type = 'file';
        input.id = '${id}'; input.hidden = true; return document.body.appendChild(input) })()`,
    },
    page,
  )
  await cdp.send('DOM.setFileInputFiles', { files: [path], objectId: result.objectId }, page)
  return id
}

const server = await startE2eServer()
const browser = await launchRawBrowser()
const dir = await tempDir('fileshare-bench-web-')
const downloads = await mkdtemp(join(tmpdir(), 'fileshare-bench-downloads-'))
try {
  const { cdp } = browser
  const source = dir.join('bench.bin')
  await writePseudoRandomFile(source, SIZE, 'bench:web')

  const sender = await browser.openPage(`${server.url}/`)
  const raw = {
    encryptMs: await rawCipher(cdp, sender, 'encrypt'),
    decryptMs: await rawCipher(cdp, sender, 'decrypt'),
    chunkedUploadMs: await inPage<number>(cdp, sender, PLAIN_CHUNKED_UPLOAD, { total: SIZE }),
  }

  await pickFile(cdp, sender, source, TIMEOUT_MS)

  const upload = await findByRole(cdp, sender, 'button', 'Upload', TIMEOUT_MS)
  const stopUploadProfile = await profileWorkers(cdp, sender, 'upload')
  const uploadThreads = await threadTimes('upload')
  const uploadStart = performance.now()
  await click(cdp, sender, upload)
  await waitForField(cdp, sender, 'Share link', TIMEOUT_MS)
  const uploadMs = performance.now() - uploadStart
  await uploadThreads()
  await stopUploadProfile()
  const link = await readLink(cdp, sender, TIMEOUT_MS)

  await cdp.send('Browser.setDownloadBehavior', {
    behavior: 'allowAndName',
    downloadPath: downloads,
    eventsEnabled: true,
  })
  const receiver = await browser.openPage(link)
  // The button says so when it uses the link's last download.
  const labels = ['Download', 'Download (uses the last download)']
  const download = await findByRole(cdp, receiver, 'button', labels, TIMEOUT_MS)
  const stopDownloadProfile = await profileWorkers(cdp, receiver, 'download')
  const downloadMs = await timedDownload(cdp, 'download', () => click(cdp, receiver, download))
  await stopDownloadProfile()
  const [saved] = await readdir(downloads)
  const identical =
    saved !== undefined && (await sha256File(join(downloads, saved))) === (await sha256File(source))
  await rm(join(downloads, saved ?? ''), { force: true })

  // In the page in front: a tab in the background has its timers slowed to one a second, and
  // the plain upload waits on timers while the send buffer drains.
  const input = await fileInput(cdp, receiver, source)
  const plainThreads = await threadTimes('plain WebSocket upload')
  const plainUpload = await inPage<{ ms: number; id: string; authToken: string }>(
    cdp,
    receiver,
    PLAIN_FILE_WS_UPLOAD,
    { inputId: input, frameSize: WS_FRAME_MAX_BYTES, maxBuffered: WS_MAX_BUFFERED_BYTES },
  )
  await plainThreads()
  const plainDownloadMs = await timedDownload(cdp, 'plain download', () =>
    inPage(cdp, receiver, PLAIN_DOWNLOAD, {
      id: plainUpload.id,
      authToken: plainUpload.authToken,
      size: SIZE,
      pieceSize: WS_FRAME_MAX_BYTES,
    }),
  )
  const plainSaveMs = await timedDownload(cdp, 'plain save', () =>
    inPage(cdp, receiver, PLAIN_SAVE, { total: SIZE }),
  )

  const dropSource = dir.join('drops.bin')
  await writePseudoRandomFile(dropSource, DROP_SIZE, 'bench:web drops')
  const dropRun = await medianDropRun(() =>
    measureDropRun(browser, dropSource, DROP_SIZE, TIMEOUT_MS),
  )

  const media = await measureMediaRun(browser, server.url, await benchVideo(MEDIA_SIZE), TIMEOUT_MS)
  const image = await measureImageRun(browser, server.url, await benchImage())

  const rawEncrypt = mbps(SIZE, raw.encryptMs)
  const rawDecrypt = mbps(SIZE, raw.decryptMs)
  const plainWsUpload = mbps(SIZE, plainUpload.ms)
  const plainDownload = mbps(SIZE, plainDownloadMs)
  const uploadRate = mbps(SIZE, uploadMs)
  const downloadRate = mbps(SIZE, downloadMs)
  const version = await cdp.send<{ product: string }>('Browser.getVersion')
  const result = {
    sizeMiB: SIZE / MiB,
    browser: version.product,
    serverNodeFlags: wantedNodeFlags(),
    rawEncryptMBps: round(rawEncrypt),
    rawDecryptMBps: round(rawDecrypt),
    plainFileWebSocketUploadMBps: round(plainWsUpload),
    plainDownloadMBps: round(plainDownload),
    plainChunkedUploadMBps: round(mbps(SIZE, raw.chunkedUploadMs)),
    plainServiceWorkerSaveMBps: round(mbps(SIZE, plainSaveMs)),
    uploadMBps: round(uploadRate),
    downloadMBps: round(downloadRate),
    uploadRatio: round(uploadRate / rawEncrypt, 2),
    downloadRatio: round(downloadRate / rawDecrypt, 2),
    targetRatio: TARGET_RATIO,
    uploadToPlainRatio: round(uploadRate / plainWsUpload, 2),
    downloadToPlainRatio: round(downloadRate / plainDownload, 2),
    uploadSeconds: round(uploadMs / 1000, 2),
    downloadSeconds: round(downloadMs / 1000, 2),
    downloadIdentical: identical,
    dropRunMiB: DROP_SIZE / MiB,
    droppedUploadMBps: round(mbps(DROP_SIZE, dropRun.droppedMs)),
    proxiedUploadMBps: round(mbps(DROP_SIZE, dropRun.steadyMs)),
    drops: dropRun.drops,
    dropRatio: round(dropRun.steadyMs / dropRun.droppedMs, 3),
    dropRatioTarget: DROP_RATIO_TARGET,
    dropRounds: DROP_ROUNDS,
    mediaFileMiB: round(media.fileBytes / MiB),
    mediaPageReadyMs: Math.round(media.pageReadyMs),
    mediaFirstFrameMs: Math.round(media.firstFrameMs),
    mediaFirstFrameTargetMs: FIRST_FRAME_TARGET_MS,
    mediaSeekMs: Math.round(media.seekMs),
    mediaSeekTargetMs: SEEK_TARGET_MS,
    mediaBytesBeforeFirstFrame: media.bytesBeforeFirstFrame,
    mediaFractionBeforeFirstFrame: round(media.bytesBeforeFirstFrame / media.fileBytes, 4),
    mediaFractionTarget: FETCHED_BEFORE_FRAME_TARGET,
    mediaDownloadCount: media.downloadCount,
    imageMB: round(image.fileBytes / 1e6),
    imageShownMs: Math.round(image.shownMs),
    imageFetchMs: Math.round(image.fetchMs),
    imageDecryptMs: Math.round(image.decryptMs),
    imageDecodeMs: Math.round(image.decodeMs),
    imageTargetMs: IMAGE_TARGET_MS,
  }

  console.log(`fileshare web app, ${result.sizeMiB} MiB through the pages, ${result.browser}`)
  console.log(`server in the benchmark's process, started as: node ${wantedNodeFlags().join(' ')}`)
  console.log(
    `${'measure'.padEnd(52)}${'MB/s'.padStart(8)}${'ratio'.padStart(8)}  target${'no cipher'.padStart(12)}`,
  )
  const row = (label: string, rate: number, ratio?: number, toPlain?: number) =>
    console.log(
      label.padEnd(52) +
        rate.toFixed(1).padStart(8) +
        (ratio === undefined ? '' : ratio.toFixed(2)).padStart(8) +
        (ratio === undefined ? '' : `  >= ${TARGET_RATIO}`) +
        (toPlain === undefined ? '' : toPlain.toFixed(2).padStart(10)),
    )
  row('raw WebCrypto AES-256-GCM encrypt', rawEncrypt)
  row('raw WebCrypto AES-256-GCM decrypt', rawDecrypt)
  row(
    'upload through the page (click to link)',
    uploadRate,
    result.uploadRatio,
    result.uploadToPlainRatio,
  )
  row(
    'download through the page (to disk)',
    downloadRate,
    result.downloadRatio,
    result.downloadToPlainRatio,
  )
  console.log('the same without the cipher or the client code, from the page:')
  row('  the file sent as it is over the upload WebSocket', plainWsUpload)
  row('  that upload downloaded and saved by the worker', plainDownload)
  row('  chunked upload of zeros (10 MB chunks)', result.plainChunkedUploadMBps)
  row('  zeros made in the page, saved by the worker', result.plainServiceWorkerSaveMBps)
  console.log(
    `${result.dropRunMiB} MiB through a proxy, the same file, median of ${DROP_ROUNDS} rounds:`,
  )
  row('  upload through the page, no drops', result.proxiedUploadMBps)
  console.log(
    `${`  with ${DROPS} drops, resumed by the page`.padEnd(52)}${result.droppedUploadMBps
      .toFixed(1)
      .padStart(8)}${result.dropRatio.toFixed(2).padStart(8)}  >= ${DROP_RATIO_TARGET}`,
  )
  console.log(`downloaded file identical to the upload: ${identical ? 'yes' : 'NO'}`)
  console.log(
    `${result.mediaFileMiB} MiB WebM played on the download page: page ready in ` +
      `${result.mediaPageReadyMs} ms; first frame ${result.mediaFirstFrameMs} ms after Play ` +
      `(< ${FIRST_FRAME_TARGET_MS}), ${round(media.bytesBeforeFirstFrame / 1e6)} MB fetched ` +
      `before it (${round(result.mediaFractionBeforeFirstFrame * 100, 2)} %, ` +
      `< ${FETCHED_BEFORE_FRAME_TARGET * 100} %); seek to 2/3 in ${result.mediaSeekMs} ms ` +
      `(< ${SEEK_TARGET_MS}); downloads counted: ${media.downloadCount}`,
  )
  console.log(
    `${result.imageMB} MB JPEG fetched, decrypted and decoded in the page: ` +
      `${result.imageShownMs} ms (< ${IMAGE_TARGET_MS}; fetch ${result.imageFetchMs}, ` +
      `decrypt ${result.imageDecryptMs}, decode ${result.imageDecodeMs})`,
  )
  console.log(JSON.stringify(result))
  if (!identical || media.downloadCount !== 1) process.exitCode = 1
} finally {
  await browser.close()
  await server.close()
  await dir.remove()
  await rm(downloads, { recursive: true, force: true })
}
