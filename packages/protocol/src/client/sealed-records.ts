/**
 * The proof that a record sealed again is the record sealed before: the GCM tag of every record
 * of an upload that may have left the client, kept in order from record 0 (docs/crypto.md,
 * "Resuming"). A record sealed again under the nonce of index i passes only with the tag it had;
 * any other is refused before a byte of it is sent, so no nonce ever covers two plaintexts on the
 * wire. With a keeper, tags are kept (on disk, in the browser's storage) before their records
 * leave, so that another run can prove the same.
 */
import { ProtocolError } from '../errors.js'
import { RECORD_TAG_SIZE } from '../sizes.js'

/** Keeps tags for another run: those of records `index`, `index + 1`, … in `tags`. */
export type SealKeeper = (index: number, tags: Uint8Array) => Promise<void>

/** Records a keeper may be behind by: they wait, sealed, until their tags are kept. */
export const RECORDS_AWAITING_KEEPER = 4

export class SealedRecords {
  readonly #tags: Uint8Array
  /** Records whose tags are known, from record 0. */
  #count: number
  /** Of those, the records whose tags the keeper has. */
  #kept: number
  #writing: Promise<void> | undefined
  #failure: { error: unknown } | undefined
  readonly #keeper: SealKeeper | undefined

  /**
   * For a payload of `records` records; `tags` are those an earlier run kept (16 bytes per
   * record, from record 0), `keeper` keeps new ones.
   */
  constructor(records: number, tags: Uint8Array = new Uint8Array(0), keeper?: SealKeeper) {
    if (tags.length % RECORD_TAG_SIZE !== 0 || tags.length > records * RECORD_TAG_SIZE) {
      throw new ProtocolError('BAD_INPUT', 'The kept record tags do not fit this upload')
    }
    this.#tags = new Uint8Array(records * RECORD_TAG_SIZE)
    this.#tags.set(tags)
    this.#count = tags.length / RECORD_TAG_SIZE
    this.#kept = this.#count
    this.#keeper = keeper
  }

  /** Records whose tags are known: every record at a lower index may have been sent. */
  get count(): number {
    return this.#count
  }

  /** Whether a keeper must have a record's tag before the record leaves. */
  get keeps(): boolean {
    return this.#keeper !== undefined
  }

  /**
   * Admits sealed record `index` (its tag is its last 16 bytes): its tag is recorded the first
   * time, and compared every later time; a different tag throws `changed()`, a record past the
   * next one throws BAD_INPUT (nothing before it was sealed, so the server cannot hold it).
   */
  admit(index: number, sealed: Uint8Array, changed: () => Error): void {
    if (!Number.isSafeInteger(index) || index < 0 || index > this.#count) {
      throw new ProtocolError('BAD_INPUT', 'The server asked for data that was never sent')
    }
    if (sealed.length < RECORD_TAG_SIZE) {
      throw new ProtocolError('BAD_INPUT', 'A sealed record is shorter than its tag')
    }
    const tag = sealed.subarray(sealed.length - RECORD_TAG_SIZE)
    const at = index * RECORD_TAG_SIZE
    if (at + RECORD_TAG_SIZE > this.#tags.length) {
      throw new ProtocolError('BAD_INPUT', 'The payload has more records than it was said to')
    }
    if (index < this.#count) {
      if (!sameTag(this.#tags.subarray(at, at + RECORD_TAG_SIZE), tag)) throw changed()
      return
    }
    this.#tags.set(tag, at)
    this.#count++
  }

  /** Resolves once the keeper has the tag of record `index` (at once without a keeper). */
  async kept(index: number): Promise<void> {
    while (this.#keeper && this.#kept <= index) {
      if (this.#failure) throw this.#failure.error
      this.#flush()
      await this.#writing
    }
  }

  /** Hands the keeper every tag it does not have yet, one write at a time. */
  #flush(): void {
    const keeper = this.#keeper
    if (!keeper || this.#writing || this.#failure || this.#kept >= this.#count) return
    const from = this.#kept
    const to = this.#count
    const tags = this.#tags.slice(from * RECORD_TAG_SIZE, to * RECORD_TAG_SIZE)
    this.#writing = keeper(from, tags).then(
      () => {
        this.#kept = to
        this.#writing = undefined
      },
      (error: unknown) => {
        this.#failure = { error }
        this.#writing = undefined
      },
    )
  }
}

/** Tags are not secret (the server holds those it received): a plain comparison will do. */
function sameTag(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < RECORD_TAG_SIZE; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * Passes sealed records (one per chunk, from record `first`) through `sealed`: each is admitted,
 * and with a keeper held until its tag is kept, at most RECORDS_AWAITING_KEEPER at a time.
 */
export function admitRecords(
  sealed: SealedRecords,
  first: number,
  changed: (index: number) => Error,
): TransformStream<Uint8Array, Uint8Array> {
  let index = first
  const held: Promise<Uint8Array>[] = []
  return new TransformStream<Uint8Array, Uint8Array>({
    async transform(record, controller) {
      const at = index++
      sealed.admit(at, record, () => changed(at))
      if (!sealed.keeps) {
        controller.enqueue(record)
        return
      }
      const kept = sealed.kept(at).then(() => record)
      kept.catch(() => undefined)
      held.push(kept)
      while (held.length > RECORDS_AWAITING_KEEPER) controller.enqueue(await held.shift()!)
    },
    async flush(controller) {
      while (held.length > 0) controller.enqueue(await held.shift()!)
    },
  })
}
