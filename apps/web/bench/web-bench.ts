/**
 * `pnpm bench:web`: starts the server with the built web app, launches Chromium, and measures in
 * one run: the upload of a 256 MiB file through the page (from the click on Upload to the share
 * link), its download through the page to disk (from the click on Download to the browser's
 * "completed"), and raw WebCrypto AES-256-GCM in the same browser (1 MiB calls, four in flight),
 * encrypting and decrypting; and, for context, the server's chunked upload driven from the page
 * with no cipher at all (what browser and server manage on this machine). Prints a table with each transfer's ratio to the raw cipher of its
 * direction (target at least 0.4); the last line is one JSON object of every figure.
 * BENCH_WEB_MIB sets another size; BENCH_WEB_THREADS=1 prints each step's CPU time per thread of
 * the browser and the server (bench/threads.ts).
 *
 * Chromium is driven over a bare DevTools connection (bench/cdp.ts), not playwright: playwright
 * has Chromium copy every request body and WebSocket frame into its network events, which caps
 * uploads from a page at a fraction of their real speed.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { sha256File, tempDir, writePseudoRandomFile } from '../e2e/files.js'
import { startE2eServer } from '../e2e/server.js'
import { callOn, evaluate, findByRole, launchRawBrowser, waitForField, type Cdp } from './cdp.js'
import { threadTimes } from './threads.js'

const MiB = 1024 * 1024
const SIZE = Number(process.env.BENCH_WEB_MIB ?? 256) * MiB
const CALL_SIZE = MiB
const IN_FLIGHT = 4
const TARGET_RATIO = 0.4
const TIMEOUT_MS = 3 * 60_000

const mbps = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000)
const round = (n: number, digits = 1) => Number(n.toFixed(digits))

/** AES-256-GCM over `total` bytes in `callSize` calls, `inFlight` at once; milliseconds taken. */
const RAW_CIPHER = `async ({ total, callSize, inFlight, mode }) => {
  const key = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, [
    'encrypt',
    'decrypt',
  ])
  const plain = new Uint8Array(callSize)
  for (let at = 0; at < callSize; at += 65536) crypto.getRandomValues(plain.subarray(at, at + 65536))
  const iv = new Uint8Array(12)
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, plain))
  const calls = Math.ceil(total / callSize)
  let next = 0
  const lane = async () => {
    while (next < calls) {
      next++
      if (mode === 'encrypt') await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, plain)
      else await crypto.subtle.decrypt({ name: 'AES-GCM', iv }, key, sealed)
    }
  }
  const start = performance.now()
  await Promise.all(Array.from({ length: inFlight }, lane))
  return performance.now() - start
}`

/**
 * The server's chunked upload driven from the page with no cipher and no client code: random
 * tokens, 10 MB chunks of zeros, three in flight. What the browser and the server manage on
 * this machine before any encryption, for context.
 */
const RAW_UPLOAD = `async ({ total }) => {
  const token = () =>
    btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))
      .replace(/[+]/g, '-').replace(/[/]/g, '_').replace(/=+$/, '')
  const headers = {
    'X-Auth-Token': token(), 'X-Owner-Token': token(), 'X-Salt': token(),
    'X-Max-Downloads': '1', 'X-Expire-Sec': String((await (await fetch('/api/config')).json()).defaultExpire),
    'X-File-Count': '1', 'X-Has-Password': 'false', 'X-Content-Length': String(total),
  }
  const start = performance.now()
  const init = await fetch('/api/upload/init', { method: 'POST', headers })
  if (!init.ok) throw new Error('init answered ' + init.status)
  const { id } = await init.json()
  const chunk = 10000000
  const body = new Uint8Array(chunk)
  const running = new Set()
  for (let index = 0, at = 0; at < total; index++, at += chunk) {
    while (running.size >= 3) await Promise.race(running)
    const piece = total - at < chunk ? body.subarray(0, total - at) : body
    const job = fetch('/api/upload/' + id + '/chunk?index=' + index, { method: 'POST', body: piece })
      .then((r) => { if (!r.ok) throw new Error('chunk answered ' + r.status) })
    running.add(job)
    job.finally(() => running.delete(job)).catch(() => undefined)
  }
  await Promise.all(running)
  const done = await fetch('/api/upload/' + id + '/finalize', {
    method: 'POST', headers: { 'X-Owner-Token': headers['X-Owner-Token'] },
  })
  if (!done.ok) throw new Error('finalize answered ' + done.status)
  return performance.now() - start
}`

/**
 * A download of `total` bytes of zeros saved exactly as the page saves a real one, with no
 * network and no cipher: 1 MiB chunks made in the page go by transfer over a port to the service
 * worker (`fileshare-download`, the chunk/pull messages of worker/streams.ts), which answers
 * the hidden frame's one-time address as a browser download. What the browser's own download
 * path manages on this machine, for context.
 */
const PLAIN_SAVE = `async ({ total }) => {
  const worker = (await navigator.serviceWorker.ready).active
  const channel = new MessageChannel()
  const reply = new MessageChannel()
  const id = 'bench-' + crypto.randomUUID()
  let sent = 0
  channel.port2.onmessage = (event) => {
    if (event.data.type !== 'pull') return
    if (sent >= total) return channel.port2.postMessage({ type: 'done' })
    const chunk = new Uint8Array(Math.min(1048576, total - sent))
    sent += chunk.length
    channel.port2.postMessage({ type: 'chunk', chunk }, [chunk.buffer])
  }
  await new Promise((resolve) => {
    reply.port1.onmessage = (event) => event.data.type === 'fileshare-ready' && resolve()
    worker.postMessage(
      { type: 'fileshare-download', id, name: 'plain.bin', size: total,
        contentType: 'application/octet-stream', port: channel.port1 },
      [reply.port2, channel.port1],
    )
  })
  const frame = document.createElement('iframe')
  frame.hidden = true
  frame.src = '/__fileshare/download/' + id
  document.body.append(frame)
}`

function rawCipher(cdp: Cdp, page: string, mode: 'encrypt' | 'decrypt'): Promise<number> {
  const args = { total: SIZE, callSize: CALL_SIZE, inFlight: IN_FLIGHT, mode }
  return evaluate<number>(cdp, page, `(${RAW_CIPHER})(${JSON.stringify(args)})`)
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
    for (const [n, { id, name }] of sessions.entries()) {
      const { profile } = await cdp.send<{ profile: unknown }>('Profiler.stop', {}, id)
      await writeFile(join(dir, `${label}-${name}-${n}.cpuprofile`), JSON.stringify(profile))
    }
  }
}

const click = (cdp: Cdp, page: string, objectId: string) =>
  callOn(cdp, page, objectId, 'function () { this.click() }')

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
    uploadMs: await evaluate<number>(cdp, sender, `(${RAW_UPLOAD})({ total: ${SIZE} })`),
  }

  // Pick the file as a person would: the "Choose files" button opens the chooser.
  await cdp.send('Page.setInterceptFileChooserDialog', { enabled: true }, sender)
  const chooser = cdp.waitFor('Page.fileChooserOpened')
  await click(cdp, sender, await findByRole(cdp, sender, 'button', 'Choose files', TIMEOUT_MS))
  const { backendNodeId } = (await chooser) as { backendNodeId: number }
  await cdp.send('DOM.setFileInputFiles', { files: [source], backendNodeId }, sender)

  const upload = await findByRole(cdp, sender, 'button', 'Upload', TIMEOUT_MS)
  const stopUploadProfile = await profileWorkers(cdp, sender, 'upload')
  const uploadThreads = await threadTimes('upload')
  const uploadStart = performance.now()
  await click(cdp, sender, upload)
  await waitForField(cdp, sender, 'Share link', TIMEOUT_MS)
  const uploadMs = performance.now() - uploadStart
  await uploadThreads()
  await stopUploadProfile()
  const linkField = await findByRole(cdp, sender, 'textbox', 'Share link', TIMEOUT_MS)
  const link = await callOn<string>(cdp, sender, linkField, 'function () { return this.value }')

  await cdp.send('Browser.setDownloadBehavior', {
    behavior: 'allowAndName',
    downloadPath: downloads,
    eventsEnabled: true,
  })
  const receiver = await browser.openPage(link)
  const download = await findByRole(cdp, receiver, 'button', 'Download', TIMEOUT_MS)
  const completed = cdp.waitFor('Browser.downloadProgress', (p) => p.state !== 'inProgress')
  const stopDownloadProfile = await profileWorkers(cdp, receiver, 'download')
  const downloadThreads = await threadTimes('download')
  const downloadStart = performance.now()
  await click(cdp, receiver, download)
  const outcome = await Promise.race([
    completed,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('the download did not end in time')), TIMEOUT_MS).unref(),
    ),
  ])
  const downloadMs = performance.now() - downloadStart
  await downloadThreads()
  await stopDownloadProfile()
  if (outcome.state !== 'completed') throw new Error(`the download ended ${String(outcome.state)}`)
  const [saved] = await readdir(downloads)
  const identical =
    saved !== undefined && (await sha256File(join(downloads, saved))) === (await sha256File(source))

  await rm(join(downloads, saved ?? ''), { force: true })

  const plainCompleted = cdp.waitFor('Browser.downloadProgress', (p) => p.state !== 'inProgress')
  const plainThreads = await threadTimes('plain save')
  const plainStart = performance.now()
  await evaluate(cdp, receiver, `(${PLAIN_SAVE})({ total: ${SIZE} })`)
  const plainOutcome = await plainCompleted
  const plainSaveMs = performance.now() - plainStart
  await plainThreads()
  if (plainOutcome.state !== 'completed') throw new Error('the plain save did not complete')

  const rawEncrypt = mbps(SIZE, raw.encryptMs)
  const rawDecrypt = mbps(SIZE, raw.decryptMs)
  const rawUpload = mbps(SIZE, raw.uploadMs)
  const plainSave = mbps(SIZE, plainSaveMs)
  const uploadRate = mbps(SIZE, uploadMs)
  const downloadRate = mbps(SIZE, downloadMs)
  const version = await cdp.send<{ product: string }>('Browser.getVersion')
  const result = {
    sizeMiB: SIZE / MiB,
    browser: version.product,
    rawEncryptMBps: round(rawEncrypt),
    rawDecryptMBps: round(rawDecrypt),
    plainChunkedUploadMBps: round(rawUpload),
    plainServiceWorkerSaveMBps: round(plainSave),
    uploadMBps: round(uploadRate),
    downloadMBps: round(downloadRate),
    uploadRatio: round(uploadRate / rawEncrypt, 2),
    downloadRatio: round(downloadRate / rawDecrypt, 2),
    targetRatio: TARGET_RATIO,
    uploadSeconds: round(uploadMs / 1000, 2),
    downloadSeconds: round(downloadMs / 1000, 2),
    downloadIdentical: identical,
  }

  console.log(`fileshare web app, ${result.sizeMiB} MiB through the pages, ${result.browser}`)
  console.log(`${'measure'.padEnd(48)}${'MB/s'.padStart(10)}${'ratio'.padStart(8)}  target`)
  const row = (label: string, rate: number, ratio?: number) =>
    console.log(
      label.padEnd(48) +
        rate.toFixed(1).padStart(10) +
        (ratio === undefined ? '' : ratio.toFixed(2)).padStart(8) +
        (ratio === undefined ? '' : `  >= ${TARGET_RATIO}`),
    )
  row('raw WebCrypto AES-256-GCM encrypt', rawEncrypt)
  row('raw WebCrypto AES-256-GCM decrypt', rawDecrypt)
  row('plain chunked upload from the page, no cipher', rawUpload)
  row('plain save through the service worker, no cipher', plainSave)
  row('upload through the page (click to link)', uploadRate, result.uploadRatio)
  row('download through the page (to disk)', downloadRate, result.downloadRatio)
  console.log(`downloaded file identical to the upload: ${identical ? 'yes' : 'NO'}`)
  console.log(JSON.stringify(result))
  if (!identical) process.exitCode = 1
} finally {
  await browser.close()
  await server.close()
  await dir.remove()
  await rm(downloads, { recursive: true, force: true })
}
