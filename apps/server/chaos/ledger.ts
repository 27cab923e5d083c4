/**
 * What a chaos run's clients were told, kept as the workload goes: every upload, note and request
 * the service acknowledged, with what it holds and how often it was read, and the violations seen
 * on the way. The invariants are checked against it once the faults stop.
 * May touch: nothing beyond itself.
 */
import { createHash } from 'node:crypto'

/** Reads of an item: those that ended with the right bytes, and those that broke off. */
export interface Reads {
  completed: number
  /** Broke off or failed: the server may or may not have counted them. */
  failed: number
}

export interface UploadEntry {
  id: string
  link: string
  /** Null for an upload sent by the command line, whose owner token the run does not keep. */
  ownerToken: string | null
  size: number
  /** SHA-256 of the plaintext, hex. */
  digest: string
  maxDownloads: number
  expiresAt: number
  via: 'ws' | 'chunks' | 'cli'
  reads: Reads
  /** Deleted by its owner; `null` while a delete whose answer was lost leaves it unknown. */
  deleted: boolean | null
}

export interface NoteEntry {
  id: string
  link: string
  ownerToken: string
  digest: string
  maxViews: number
  expiresAt: number
  reads: Reads
  deleted: boolean | null
}

export interface SentEntry {
  id: string
  digest: string
}

export interface RequestEntry {
  id: string
  uploadLink: string
  inboxLink: string
  inboxOwnerToken: string
  maxUploads: number
  downloads: number
  /** Uploads a sender was told went in. */
  sent: SentEntry[]
  /** Digests of every payload a sender tried: what any upload in the inbox must be. */
  tried: Set<string>
  /** Downloads of each of its uploads, by upload id. */
  reads: Map<string, Reads>
  closed: boolean | null
  deleted: boolean | null
}

export class Ledger {
  readonly uploads: UploadEntry[] = []
  readonly notes: NoteEntry[] = []
  readonly requests: RequestEntry[] = []
  /** Requests the service created (each counts toward the daily limit). */
  requestsCreated = 0
  operations = 0
  /** Failures a fault explains (a cut, a restart), by what failed: counted, not violations. */
  readonly failures = new Map<string, number>()
  /** Broken invariants seen during the workload, by invariant. */
  readonly violations = new Map<string, string[]>()

  /** The first messages of each kind of failure, to tell a fault's effect from a defect. */
  readonly failureSamples = new Map<string, string[]>()

  fail(what: string, message = ''): void {
    this.failures.set(what, (this.failures.get(what) ?? 0) + 1)
    const samples = this.failureSamples.get(what) ?? []
    if (samples.length < 3 && message) samples.push(message)
    this.failureSamples.set(what, samples)
  }

  violate(invariant: string, detail: string): void {
    const list = this.violations.get(invariant) ?? []
    list.push(detail)
    this.violations.set(invariant, list)
  }
}

export const noReads = (): Reads => ({ completed: 0, failed: 0 })

export function digestOf(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex')
}
