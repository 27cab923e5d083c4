/**
 * A blob store that runs a step ahead of every write of its writers (a delay, a gate or a
 * failure), for the tests of flow control and storage failures behind the upload transports.
 */
import type { BlobStore, BlobWriter, ResumableWriter } from '../src/storage/blob-store.js'

function intercepted<W extends BlobWriter>(writer: W, before: () => Promise<void>): W {
  return new Proxy(writer, {
    get(target, property, receiver) {
      if (property === 'write') {
        return async (chunk: Uint8Array) => {
          await before()
          await target.write(chunk)
        }
      }
      const value = Reflect.get(target, property, receiver) as unknown
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value
    },
  })
}

/** `inner` with `before` run ahead of every write of every writer it makes. */
export function interceptWrites(inner: BlobStore, before: () => Promise<void>): BlobStore {
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'create') {
        return async (key: string) => intercepted(await target.create(key), before)
      }
      if (property === 'createResumable') {
        return async (key: string) =>
          intercepted<ResumableWriter>(await target.createResumable(key), before)
      }
      if (property === 'reopen') {
        return async (key: string, state: string, offset: number) =>
          intercepted<ResumableWriter>(await target.reopen(key, state, offset), before)
      }
      const value = Reflect.get(target, property, receiver) as unknown
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value
    },
  })
}
