/**
 * A source overwritten while its upload is cut (same size, same modification time) is never
 * sealed again under the nonces it used: whatever offset the server asks to continue from, the
 * upload fails with SOURCE_CHANGED before a byte of the other plaintext is sent, over both
 * transports, for a file read from disk (Node) and for a picked `File` (the browser's path). A
 * source that did not change resumes, also from offset 0 and in another run. A password-protected
 * upload keeps only what the password protects for another run, and takes the password again.
 */
import { mkdtemp, open, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { FakeServer, uploadDeclaration } from '../../test/fake-upload-server.js'
import { collect, pseudoRandomBytes, sameBytes } from '../../test/streams.js'
import { deriveUploadKeys } from '../crypto/keys.js'
import { parseLink, type FileLink } from '../crypto/link.js'
import { derivePasswordKey, protectSecret } from '../crypto/password.js'
import { createDecryptStream } from '../crypto/stream.js'
import { encryptedSize, RECORD_SIZE, RECORD_TAG_SIZE } from '../sizes.js'
import type { KeptState } from './caller-upload.js'
import { ciphertextFrom } from './ciphertext-from.js'
import { resumeSendFile, sendFile, type FileUploadState, type SendFileOptions } from './files.js'
import { SealedRecords } from './sealed-records.js'
import type { PayloadSource } from './source.js'
import { uploadCiphertext, type UploadCiphertextOptions } from './upload.js'

const RECORD = 256
const NAME = 'report.pdf'
const SIZE = 40 * RECORD + 17

/** A source whose bytes the test can overwrite in place, keeping its size and time. */
interface Overwritable {
  source: PayloadSource
  overwrite(bytes: Uint8Array): Promise<void>
}

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fileshare-source-changed-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** A file on disk read as the command line reads one: opened and read from an offset. */
async function diskFile(bytes: Uint8Array): Promise<Overwritable> {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.bin`)
  await writeFile(path, bytes)
  const { atime, mtime } = await stat(path)
  const read = (from: number) => {
    let position = from
    let handle: Awaited<ReturnType<typeof open>> | undefined
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        handle ??= await open(path, 'r')
        const chunk = new Uint8Array(Math.min(300, bytes.length - position))
        const { bytesRead } =
          chunk.length > 0 ? await handle.read(chunk, 0, chunk.length, position) : { bytesRead: 0 }
        position += bytesRead
        if (bytesRead === 0) {
          await handle.close()
          controller.close()
        } else controller.enqueue(chunk.subarray(0, bytesRead))
      },
      async cancel() {
        await handle?.close()
      },
    })
  }
  return {
    source: {
      size: bytes.length,
      stream: () => read(0),
      streamFrom: read,
      nameAt: () => NAME,
    },
    overwrite: async (next) => {
      await writeFile(path, next)
      await utimes(path, atime, mtime)
    },
  }
}

/**
 * A picked `File` as a browser reads it: sliced and streamed, its name its own. A browser reads
 * the file on disk at each read, and sees no change when size and time stayed; so does this one.
 */
function pickedFile(bytes: Uint8Array): Overwritable {
  let current = bytes
  class PickedFile extends File {
    override slice(start?: number, end?: number, type?: string): Blob {
      return new Blob([current.slice(start, end)], type === undefined ? {} : { type })
    }
    override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
      return new Blob([current.slice()]).stream()
    }
  }
  return {
    source: new PickedFile([bytes.slice()], NAME),
    overwrite: async (next) => {
      current = next
    },
  }
}

const SOURCES = [
  ['a file on disk (Node)', diskFile],
  ['a picked File (browser)', pickedFile],
] as const
const TRANSPORTS = [
  ['WebSocket', true],
  ['chunks', false],
] as const

async function fileKey(): Promise<CryptoKey> {
  return (await deriveUploadKeys(pseudoRandomBytes(32, 1), pseudoRandomBytes(32, 2))).fileKey
}

/** Cuts the upload once, a third of the way in, on either transport. */
function cutOnce(server: FakeServer): void {
  server.dropAt = [Math.floor(encryptedSize(SIZE, RECORD) / 3)]
  server.failChunks = new Set([4])
}

/** An upload of `source` that resumes, calling `onCut` when its connection is lost. */
function upload(
  source: PayloadSource,
  key: CryptoKey,
  onCut: () => Promise<void> | void,
): UploadCiphertextOptions {
  const size = encryptedSize(source.size, RECORD)
  const cut = { pending: Promise.resolve() }
  // One set of tags for the upload: every resume of it is checked against its first pass.
  const sealed = new SealedRecords(Math.ceil(source.size / RECORD))
  return {
    target: { kind: 'file', declaration: uploadDeclaration(size) },
    size,
    ciphertext: (offset) => {
      // The overwrite lands before the source is read again, as on a real disk during an outage.
      const stream = ciphertextFrom(source, key, { recordSize: RECORD, sealed })(offset)
      return offset === 0 ? stream : deferredStream(cut.pending, () => stream)
    },
    resume: {
      retryForMs: 60_000,
      onConnectionLost: () => {
        cut.pending = Promise.resolve(onCut())
      },
    },
  }
}

/** A stream that starts once `ready` resolves. */
function deferredStream(
  ready: Promise<void>,
  open: () => ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!reader) {
        await ready
        reader = open().getReader()
      }
      const { value, done } = await reader.read()
      if (done) controller.close()
      else controller.enqueue(value)
    },
    async cancel(reason) {
      await reader?.cancel(reason)
    },
  })
}

/**
 * The upload fails with SOURCE_CHANGED naming the file, no offset was ever sent two different
 * bytes, and nothing was stored.
 */
async function expectRefused(server: FakeServer, upload: Promise<unknown>): Promise<void> {
  await expect(upload).rejects.toMatchObject({
    code: 'SOURCE_CHANGED',
    message: 'report.pdf changed while it was being sent; send it again',
  })
  expect(server.conflicts).toBe(0)
  expect(server.finished.size).toBe(0)
}

async function decrypt(key: CryptoKey, ciphertext: Uint8Array): Promise<Uint8Array> {
  const plain = new Blob([ciphertext.slice()])
    .stream()
    .pipeThrough(createDecryptStream(key, { recordSize: RECORD }))
  return collect(plain)
}

for (const [sourceName, makeSource] of SOURCES) {
  for (const [transport, webSocket] of TRANSPORTS) {
    describe(`${sourceName} over ${transport}`, () => {
      // The server can ask for any earlier offset: nothing of the other plaintext may reach it.
      it('is not sealed again once overwritten, when the server asks for everything again', async () => {
        const server = new FakeServer()
        cutOnce(server)
        const original = pseudoRandomBytes(SIZE, 3)
        const file = await makeSource(original)
        const key = await fileKey()
        const options = upload(file.source, key, async () => {
          server.rewind = true
          await file.overwrite(pseudoRandomBytes(SIZE, 4))
        })
        await expectRefused(server, uploadCiphertext(server.client(webSocket), options))
      })

      it('is not mixed with what the server holds when it continues from its durable point', async () => {
        const server = new FakeServer()
        cutOnce(server)
        const file = await makeSource(pseudoRandomBytes(SIZE, 5))
        const key = await fileKey()
        const options = upload(file.source, key, () => file.overwrite(pseudoRandomBytes(SIZE, 6)))
        await expectRefused(server, uploadCiphertext(server.client(webSocket), options))
      })

      it('resumes when unchanged, even from offset 0, and arrives byte for byte', async () => {
        const server = new FakeServer()
        cutOnce(server)
        const original = pseudoRandomBytes(SIZE, 7)
        const file = await makeSource(original)
        const key = await fileKey()
        const options = upload(file.source, key, () => {
          server.rewind = true
        })
        const { id } = await uploadCiphertext(server.client(webSocket), options)
        expect(server.log.some((line) => line.endsWith('/status'))).toBe(true)
        expect(sameBytes(await decrypt(key, server.finished.get(id)!), original)).toBe(true)
        expect(server.conflicts).toBe(0)
      })
    })
  }
}

/**
 * A file upload of `source` stopped as an interrupted program stops, once two records are sent;
 * answers what it kept for another run: its state and its record tags.
 */
async function stoppedUpload(
  server: FakeServer,
  webSocket: boolean,
  source: PayloadSource,
  password?: string,
): Promise<KeptState<FileUploadState>> {
  const controller = new AbortController()
  let state: FileUploadState | undefined
  let tags = new Uint8Array(0)
  const options: SendFileOptions = {
    expireSec: 3600,
    maxDownloads: 1,
    metadata: { archive: false, files: [{ name: NAME, type: '', size: source.size }] },
    fileCount: 1,
    signal: controller.signal,
    onProgress: ({ sentBytes }) => {
      if (sentBytes > 2 * (RECORD_SIZE + RECORD_TAG_SIZE)) {
        controller.abort(new DOMException('Stopped', 'AbortError'))
      }
    },
    ...(password === undefined ? {} : { password }),
    resume: {
      retryForMs: 60_000,
      keepOnAbort: true,
      onState: (named) => {
        state = named
      },
      onSealed: async (index, more) => {
        expect(index * RECORD_TAG_SIZE).toBe(tags.length)
        tags = new Uint8Array([...tags, ...more])
      },
    },
  }
  await expect(sendFile(server.client(webSocket), source, options)).rejects.toThrow('Stopped')
  return { state: state!, sealed: tags }
}

/** The options of a run that continues a stopped upload. */
function resumed(password?: string): SendFileOptions {
  return {
    expireSec: 3600,
    maxDownloads: 1,
    metadata: { archive: false, files: [{ name: NAME, type: '', size: 0 }] },
    fileCount: 1,
    ...(password === undefined ? {} : { password }),
    resume: { retryForMs: 60_000 },
  }
}

for (const [sourceName, makeSource] of SOURCES) {
  for (const [transport, webSocket] of TRANSPORTS) {
    describe(`${sourceName} over ${transport}, continued in another run`, () => {
      const size = 5 * RECORD_SIZE + 5

      it('proves its bytes with the tags kept, and refuses them overwritten', async () => {
        const server = new FakeServer()
        const file = await makeSource(pseudoRandomBytes(size, 8))
        const kept = await stoppedUpload(server, webSocket, file.source)
        expect(kept.sealed!.length).toBeGreaterThan(2 * RECORD_TAG_SIZE)
        await file.overwrite(pseudoRandomBytes(size, 9))
        // Whatever the server answers: here it asks for everything again.
        server.rewind = true
        const api = server.client(webSocket)
        await expectRefused(server, resumeSendFile(api, file.source, kept, resumed()))
      })

      it('continues from the tags kept when the source is the same', async () => {
        const server = new FakeServer()
        const original = pseudoRandomBytes(size, 10)
        const file = await makeSource(original)
        const kept = await stoppedUpload(server, webSocket, file.source)
        server.rewind = true
        const api = server.client(webSocket)
        const sent = await resumeSendFile(api, file.source, kept, resumed())
        expect(sent.id).toBe(kept.state.session.id)
        expect(server.conflicts).toBe(0)
        const { fileKey } = await deriveUploadKeys(
          Buffer.from((kept.state as { secret: string }).secret, 'base64url'),
          Buffer.from(kept.state.salt, 'base64url'),
        )
        const plain = await collect(
          new Blob([server.finished.get(sent.id)!.slice()])
            .stream()
            .pipeThrough(createDecryptStream(fileKey)),
        )
        expect(sameBytes(plain, original)).toBe(true)
      })
    })
  }
}

describe('an upload continued in another run without kept tags', () => {
  it('starts afresh under a new secret and ends the unfinished one', async () => {
    const server = new FakeServer()
    const file = pickedFile(pseudoRandomBytes(4 * RECORD_SIZE, 11))
    const kept = await stoppedUpload(server, true, file.source)
    const states: FileUploadState[] = []
    const options = resumed()
    options.resume = { retryForMs: 60_000, onState: (state) => void states.push(state) }
    const api = server.client(true)
    const sent = await resumeSendFile(api, file.source, { ...kept, sealed: undefined }, options)
    expect(server.log).toContain(`DELETE /api/upload/${kept.state.session.id}`)
    expect(sent.id).not.toBe(kept.state.session.id)
    expect(states).toHaveLength(1)
    const fresh = states[0] as { secret: string; salt: string }
    expect(fresh.secret).not.toBe((kept.state as { secret: string }).secret)
    expect(fresh.salt).not.toBe(kept.state.salt)
    expect(server.conflicts).toBe(0)
  })
})

describe('a password-protected upload continued in another run', () => {
  it('keeps neither its secret nor its owner token, and resumes once the password is given', async () => {
    const server = new FakeServer()
    const original = pseudoRandomBytes(4 * RECORD_SIZE + 3, 12)
    const file = pickedFile(original)
    const kept = await stoppedUpload(server, true, file.source, 'correct horse')
    const { id } = kept.state.session
    const ownerToken = server.sessions.get(id)!.ownerToken
    expect(Object.keys(kept.state).sort()).toEqual(['passwordLock', 'salt', 'session', 'size'])
    expect(JSON.stringify(kept.state)).not.toContain(ownerToken)

    const api = server.client(true)
    await expect(
      resumeSendFile(api, file.source, kept, resumed('wrong horse')),
    ).rejects.toMatchObject({ code: 'WRONG_PASSWORD' })
    await expect(resumeSendFile(api, file.source, kept, resumed())).rejects.toMatchObject({
      code: 'WRONG_PASSWORD',
    })
    // A wrong password leaves the upload as it was, to be resumed with the right one.
    expect(server.sessions.has(id)).toBe(true)

    const sent = await resumeSendFile(api, file.source, kept, resumed('correct horse'))
    expect(sent).toMatchObject({ id, hasPassword: true, ownerToken })
    const link = parseLink(sent.link).link as FileLink
    const passwordKey = await derivePasswordKey(
      'correct horse',
      Buffer.from(
        (kept.state as { passwordLock: { passwordSalt: string } }).passwordLock.passwordSalt,
        'base64url',
      ),
    )
    const keys = await deriveUploadKeys(
      protectSecret(link.secret, passwordKey),
      Buffer.from(kept.state.salt, 'base64url'),
    )
    const plain = await collect(
      new Blob([server.finished.get(id)!.slice()])
        .stream()
        .pipeThrough(createDecryptStream(keys.fileKey)),
    )
    expect(sameBytes(plain, original)).toBe(true)
  })
})
