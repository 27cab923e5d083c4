/**
 * The image part of `pnpm bench:web`: how long a 20 MB image takes from the counted download to
 * an <img> that has decoded it, measured in the page directly (fetch the ciphertext, open its
 * records with WebCrypto, a Blob URL, `img.decode()`), with the file key derived in Node as
 * docs/crypto.md describes. This is the work an image preview does, without its component.
 */
import { execFile } from 'node:child_process'
import { createHmac, hkdfSync } from 'node:crypto'
import { stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

import { fromBase64Url, parseLink } from '@fileshare/protocol'

import { shareFileFromNode } from '../e2e/node-client.js'
import { evaluate, type RawBrowser } from './cdp.js'

const run = promisify(execFile)

export interface ImageRun {
  fileBytes: number
  /** From the download's request to the decoded image in the page. */
  shownMs: number
  /** Of which: the ciphertext fetched, its records opened, the image decoded. */
  fetchMs: number
  decryptMs: number
  decodeMs: number
}

/** A 12-megapixel JPEG of a noisy pattern, about 20 MB, made once and kept in the temporary folder. */
export async function benchImage(): Promise<string> {
  const path = join(tmpdir(), 'fileshare-bench-image.jpg')
  if (await stat(path).catch(() => null)) return path
  await run('ffmpeg', [
    ...['-v', 'error', '-y', '-f', 'lavfi'],
    ...['-i', 'testsrc2=size=4200x3000:rate=1,noise=alls=100:allf=t'],
    ...['-frames:v', '1', '-q:v', '1', '-pix_fmt', 'yuvj444p', path],
  ])
  return path
}

/** Fetches, opens and shows the image; answers the milliseconds it took. */
const SHOW = `async ({ url, authToken, key, type }) => {
  const started = performance.now()
  const response = await fetch(url, { headers: { 'X-Auth-Token': authToken } })
  const sealed = new Uint8Array(await response.arrayBuffer())
  const fetched = performance.now()
  const raw = Uint8Array.from(atob(key), (c) => c.charCodeAt(0))
  const fileKey = await crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['decrypt'])
  const record = 1048576 + 16
  const count = Math.ceil(sealed.length / record)
  const parts = await Promise.all(
    Array.from({ length: count }, (_, i) => {
      const iv = new Uint8Array(12)
      for (let b = 10, n = i; b >= 0; b--, n = Math.floor(n / 256)) iv[b] = n % 256
      iv[11] = i === count - 1 ? 1 : 0
      const end = Math.min((i + 1) * record, sealed.length)
      return crypto.subtle.decrypt({ name: 'AES-GCM', iv }, fileKey, sealed.subarray(i * record, end))
    }),
  )
  const opened = performance.now()
  const image = new Image()
  image.src = URL.createObjectURL(new Blob(parts, { type }))
  await image.decode()
  document.body.append(image)
  const shown = performance.now()
  return {
    shownMs: shown - started,
    fetchMs: fetched - started,
    decryptMs: opened - fetched,
    decodeMs: shown - opened,
  }
}`

export async function measureImageRun(
  browser: RawBrowser,
  serverUrl: string,
  path: string,
): Promise<ImageRun> {
  const { size } = await stat(path)
  const sent = await shareFileFromNode(serverUrl, path, { name: 'bench.jpg', type: 'image/jpeg' })
  const { link } = parseLink(sent.link)
  if (link.kind !== 'file') throw new Error('not a file link')
  const info = (await (await fetch(`${serverUrl}/api/info/${sent.id}`)).json()) as { salt: string }
  const salt = fromBase64Url(info.salt)
  const derive = (label: string) =>
    Buffer.from(hkdfSync('sha256', link.secret, salt, `fileshare/v1 upload ${label}`, 32))
  const authToken = createHmac('sha256', derive('auth-key'))
    .update('fileshare/v1 upload auth-token')
    .digest('base64url')
  const args = {
    url: `/api/download/${sent.id}`,
    authToken,
    key: derive('file-key').toString('base64'),
    type: 'image/jpeg',
  }
  const page = await browser.openPage(`${serverUrl}/`)
  const times = await evaluate<Omit<ImageRun, 'fileBytes'>>(
    browser.cdp,
    page,
    `(${SHOW})(${JSON.stringify(args)})`,
  )
  return { fileBytes: size, ...times }
}
