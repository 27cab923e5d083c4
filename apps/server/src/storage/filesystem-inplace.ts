/**
 * The layout of a chunked upload's session file on the filesystem (filesystem.ts): one file per
 * session, `blobs/.chunks/<key>.inplace`, that holds each chunk of the stride the server asks for
 * at `index * chunkSize`, so that a whole upload becomes its blob by a rename. Owns the strict
 * text forms of the layout and of an in-place chunk's ref, and the gate that stops this process's
 * writes into a session file before a join or an abort takes it and shares one open session file
 * among them.
 * May touch: nothing outside this module (no file system, no database).
 */
import { assertBlobKey, UUID } from './blob-store.js'

export interface InPlaceLayout {
  size: number
  chunkSize: number
}

const COUNT = '0|[1-9][0-9]{0,15}'
const LAYOUT = new RegExp(`^inplace:(${COUNT}):([1-9][0-9]{0,15})$`)
const IN_PLACE_REF = new RegExp(`^(${UUID})\\.(${COUNT})\\.inplace$`)
const SESSION_FILE = new RegExp(`^(${UUID})\\.inplace$`)

export function encodeLayout({ size, chunkSize }: InPlaceLayout): string {
  if (!Number.isSafeInteger(size) || size < 0) throw new Error(`Refusing blob size ${size}`)
  if (!Number.isSafeInteger(chunkSize) || chunkSize <= 0) {
    throw new Error(`Refusing chunk size ${chunkSize}`)
  }
  return `inplace:${size}:${chunkSize}`
}

/** The layout a state names; anything but the canonical form `encodeLayout` writes fails. */
export function decodeLayout(state: string): InPlaceLayout {
  const match = LAYOUT.exec(state)
  const size = Number(match?.[1])
  const chunkSize = Number(match?.[2])
  if (!match || !Number.isSafeInteger(size) || !Number.isSafeInteger(chunkSize)) {
    throw new Error(`Refusing chunk upload state ${JSON.stringify(state)}`)
  }
  return { size, chunkSize }
}

export function sessionFileName(key: string): string {
  assertBlobKey(key)
  return `${key}.inplace`
}

export function sessionOfFile(name: string): string | null {
  return SESSION_FILE.exec(name)?.[1] ?? null
}

export function inPlaceRef(key: string, index: number): string {
  assertBlobKey(key)
  return `${key}.${index}.inplace`
}

/** The session and index of an in-place chunk's ref, or null for any other ref. */
export function decodeInPlaceRef(ref: string): { key: string; index: number } | null {
  const match = IN_PLACE_REF.exec(ref)
  const index = Number(match?.[2])
  return match && Number.isSafeInteger(index) ? { key: match[1]!, index } : null
}

/**
 * Where chunk `index` of `length` bytes goes in the session file, or null when it does not fit the
 * stride: a full chunk that ends within the blob, or a shorter last one that ends the blob.
 */
export function placeOf(layout: InPlaceLayout, index: number, length: number): number | null {
  const offset = index * layout.chunkSize
  if (!Number.isSafeInteger(offset) || length <= 0 || length > layout.chunkSize) return null
  const end = offset + length
  if (length === layout.chunkSize ? end <= layout.size : end === layout.size) return offset
  return null
}

/** An open session file, as far as the gates need it. */
export interface SessionFile {
  close(): Promise<void>
}

export interface Gate<F extends SessionFile> {
  closed: boolean
  /** Writers that entered and have not left. */
  users: number
  writes: Set<Promise<unknown>>
  /** The session file, opened by the first writer that asks and closed when the last leaves. */
  file: Promise<F> | undefined
  /** Settles when the writes into the file queued so far have (`writeInTurn`). */
  turn: Promise<unknown>
}

/**
 * The writes into session files under way in this process. A join or an abort closes a session's
 * gate and waits for the writes in flight: an attempt still reading its body (one that lost to
 * another attempt at its index) then fails at its next write instead of writing into the blob.
 * The writers of one session share one open file while any of them is in.
 */
export class SessionGates<F extends SessionFile> {
  private readonly gates = new Map<string, Gate<F>>()

  private gateOf(key: string): Gate<F> {
    let gate = this.gates.get(key)
    if (!gate) {
      gate = {
        closed: false,
        users: 0,
        writes: new Set(),
        file: undefined,
        turn: Promise.resolve(),
      }
      this.gates.set(key, gate)
    }
    return gate
  }

  /** The gate of session `key` for one writer, which passes each write through it, then leaves. */
  enter(key: string): Gate<F> {
    const gate = this.gateOf(key)
    gate.users++
    return gate
  }

  /** The session file of the writers in `gate`, opened by `open` if none of them has yet. */
  file(gate: Gate<F>, open: () => Promise<F>): Promise<F> {
    if (!gate.file) {
      gate.file = open()
      // A failed open is the failure of each writer that asks; none of them may go unheard.
      gate.file.catch(() => undefined)
    }
    return gate.file
  }

  /** Leaves `gate`; the last writer out closes the session file. */
  async leave(key: string, gate: Gate<F>): Promise<void> {
    gate.users--
    if (gate.users > 0) return
    const file = gate.file
    gate.file = undefined
    if (!gate.closed && this.gates.get(key) === gate) this.gates.delete(key)
    await file?.then((opened) => opened.close()).catch(() => undefined)
  }

  /** Runs `write` unless the session's gate is closed, and keeps it until it settles. */
  async pass<T>(gate: Gate<F>, key: string, write: () => Promise<T>): Promise<T> {
    if (gate.closed) throw new Error(`The chunks of session ${key} are joined or discarded`)
    const running = write()
    gate.writes.add(running)
    try {
      return await running
    } finally {
      gate.writes.delete(running)
    }
  }

  /**
   * `pass` for a write into the session file, run once the writes queued before it have settled:
   * the kernel takes one write into a file at a time anyway, and writers waiting for its lock at
   * once spin on it. A write whose turn comes after the gate closed fails without running.
   */
  writeInTurn<T>(gate: Gate<F>, key: string, write: () => Promise<T>): Promise<T> {
    const turn = gate.turn.then(() => this.pass(gate, key, write))
    gate.turn = turn.catch(() => undefined)
    return turn
  }

  /** Closes session `key`'s gate and waits for the writes in flight to settle. */
  async close(key: string): Promise<void> {
    const gate = this.gateOf(key)
    gate.closed = true
    await Promise.allSettled([...gate.writes])
  }

  /** Forgets a closed gate once its session is over (later writers find no session file). */
  forget(key: string): void {
    if (this.gates.get(key)?.closed) this.gates.delete(key)
  }
}
