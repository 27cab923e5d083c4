/**
 * What `pnpm bench:web` measures besides the pages: functions evaluated in a page (as source
 * text, called with one JSON argument), each answering the milliseconds it took unless it says
 * otherwise. The raw cipher is the target's reference; the others do what the pages do with the
 * cipher and the client code taken out, to show what the browser and the server manage on the
 * machine before any encryption.
 */

/** AES-256-GCM over `total` bytes in `callSize` calls, `inFlight` at once. */
export const RAW_CIPHER = `async ({ total, callSize, inFlight, mode }) => {
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

/** Page-side: the upload headers of a plain upload of `total` bytes, with random tokens. */
const UPLOAD_HEADERS = `async (total) => {
  const token = () =>
    btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))
      .replace(/[+]/g, '-').replace(/[/]/g, '_').replace(/=+$/, '')
  const { defaultExpire } = await (await fetch('/api/config')).json()
  return {
    authToken: token(), ownerToken: token(), salt: token(), maxDownloads: '1',
    expireSec: String(defaultExpire), fileCount: '1', contentLength: String(total),
    hasPassword: 'false',
  }
}`

/**
 * The server's chunked upload driven from the page: 10 MB chunks of zeros, three in flight, no
 * file read and no cipher.
 */
export const PLAIN_CHUNKED_UPLOAD = `async ({ total }) => {
  const h = await (${UPLOAD_HEADERS})(total)
  const headers = {
    'X-Auth-Token': h.authToken, 'X-Owner-Token': h.ownerToken, 'X-Salt': h.salt,
    'X-Max-Downloads': h.maxDownloads, 'X-Expire-Sec': h.expireSec, 'X-File-Count': h.fileCount,
    'X-Has-Password': h.hasPassword, 'X-Content-Length': h.contentLength,
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
    method: 'POST', headers: { 'X-Owner-Token': h.ownerToken },
  })
  if (!done.ok) throw new Error('finalize answered ' + done.status)
  return performance.now() - start
}`

/**
 * The file of the page's input `#<inputId>` sent as it is over the upload WebSocket, the way the
 * upload page sends its ciphertext (frames of one record, at most 16 MiB buffered) but without
 * the cipher or the worker: the browser reading the file and its WebSocket, and the server.
 * Answers `{ ms, id, authToken }`; the stored upload allows one download.
 */
export const PLAIN_FILE_WS_UPLOAD = `async ({ inputId, frameSize, maxBuffered }) => {
  const file = document.getElementById(inputId).files[0]
  const headers = await (${UPLOAD_HEADERS})(file.size)
  const start = performance.now()
  const ws = new WebSocket(location.origin.replace(/^http/, 'ws') + '/api/upload/ws')
  const answers = []
  let wake = () => undefined
  ws.onmessage = (event) => { answers.push(JSON.parse(event.data)); wake() }
  ws.onclose = (event) => { answers.push({ type: 'closed', code: event.code }); wake() }
  const answer = () => answers.length > 0
    ? Promise.resolve(answers.shift())
    : new Promise((resolve) => (wake = () => { wake = () => undefined; resolve(answers.shift()) }))
  await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject })
  ws.send(JSON.stringify({ type: 'init', headers }))
  const ready = await answer()
  if (ready.type !== 'ready') throw new Error('init answered ' + JSON.stringify(ready))
  const reader = file.stream().getReader()
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    for (let at = 0; at < value.length; at += frameSize) {
      ws.send(value.subarray(at, at + frameSize))
      while (ws.bufferedAmount > maxBuffered - frameSize) await new Promise((r) => setTimeout(r, 2))
    }
  }
  ws.send(JSON.stringify({ type: 'finalize' }))
  const done = await answer()
  if (done.type !== 'done') throw new Error('finalize answered ' + JSON.stringify(done))
  return { ms: performance.now() - start, id: ready.id, authToken: headers.authToken }
}`

/**
 * Page-side: saves `size` bytes as a browser download the way the download page does, through
 * the service worker (\`fileshare-download\`, the chunk/pull messages of worker/streams.ts);
 * \`next()\` gives the chunks in order (a Uint8Array whose buffer can be transferred), then null.
 * Answers once the hidden frame has asked for the one-time address; the browser's download
 * events say when the file is complete.
 */
const SAVE_THROUGH_SERVICE_WORKER = `async (name, size, next) => {
  const worker = (await navigator.serviceWorker.ready).active
  const channel = new MessageChannel()
  const reply = new MessageChannel()
  const id = 'bench-' + crypto.randomUUID()
  let turn = Promise.resolve()
  channel.port2.onmessage = (event) => {
    if (event.data.type !== 'pull') return
    turn = turn.then(async () => {
      const chunk = await next()
      if (chunk === null) channel.port2.postMessage({ type: 'done' })
      else channel.port2.postMessage({ type: 'chunk', chunk }, [chunk.buffer])
    })
  }
  await new Promise((resolve) => {
    reply.port1.onmessage = (event) => event.data.type === 'fileshare-ready' && resolve()
    worker.postMessage(
      { type: 'fileshare-download', id, name, size,
        contentType: 'application/octet-stream', port: channel.port1 },
      [reply.port2, channel.port1],
    )
  })
  const frame = document.createElement('iframe')
  frame.hidden = true
  frame.src = '/__fileshare/download/' + id
  document.body.append(frame)
}`

/**
 * `total` bytes of zeros made in the page, in 1 MiB chunks, saved through the service worker:
 * the browser's own download path alone, with no network and no cipher.
 */
export const PLAIN_SAVE = `async ({ total }) => {
  let made = 0
  await (${SAVE_THROUGH_SERVICE_WORKER})('plain.bin', total, async () => {
    if (made >= total) return null
    const chunk = new Uint8Array(Math.min(1048576, total - made))
    made += chunk.length
    return chunk
  })
}`

/**
 * A stored upload fetched from the server and saved through the service worker as it is, in
 * pieces of one record: the download page's network and saving without the worker or the
 * cipher.
 */
export const PLAIN_DOWNLOAD = `async ({ id, authToken, size, pieceSize }) => {
  const response = await fetch('/api/download/' + id, { headers: { 'X-Auth-Token': authToken } })
  if (!response.ok) throw new Error('download answered ' + response.status)
  const reader = response.body.getReader({ mode: 'byob' })
  let ended = false
  await (${SAVE_THROUGH_SERVICE_WORKER})('plain-download.bin', size, async () => {
    if (ended) return null
    const { value, done } = await reader.read(new Uint8Array(pieceSize), { min: pieceSize })
    ended = done
    return value && value.length > 0 ? value : null
  })
}`
