/**
 * The faults of a chaos run, drawn from its seed before it starts: what happens, to which
 * instance, when, and for how long. The same seed and length draw the same schedule.
 * May touch: nothing beyond itself (chaos/seeded.ts).
 */
import { Seeded } from './seeded.js'

export const FAULT_KINDS = ['kill', 'term', 'pause', 'postgres', 'storage', 'cut'] as const

/**
 * kill: SIGKILL of an instance, started again after `holdMs`; term: SIGTERM (a graceful stop),
 * then the same; pause: SIGSTOP, SIGCONT after `holdMs`; postgres: PostgreSQL stopped for
 * `holdMs` and started again; storage: radosgw the same; cut: every client connection through
 * the proxy cut at once.
 */
export type FaultKind = (typeof FAULT_KINDS)[number]

export interface Fault {
  /** Milliseconds from the start of the run. */
  atMs: number
  kind: FaultKind
  /** The instance (0, 1 or 2) of kill, term and pause. */
  instance?: number
  /** How long the part stays down. */
  holdMs: number
}

/** Relative frequency of each kind. */
const WEIGHTS: Record<FaultKind, number> = {
  kill: 3,
  term: 2,
  pause: 2,
  postgres: 1,
  storage: 1,
  cut: 3,
}

const GAP_MS = { min: 1_500, max: 6_000 }
const HOLD_MS: Record<FaultKind, { min: number; max: number }> = {
  kill: { min: 500, max: 4_000 },
  term: { min: 500, max: 3_000 },
  pause: { min: 1_000, max: 5_000 },
  postgres: { min: 500, max: 4_000 },
  storage: { min: 500, max: 4_000 },
  cut: { min: 0, max: 0 },
}
/** The first fault waits for the workload to have something in flight. */
const FIRST_MS = 2_000

/** The schedule of a run of `seconds` from `seed`; every fault ends before the run does. */
export function drawSchedule(seed: number, seconds: number, instances = 3): Fault[] {
  const random = Seeded.derive(seed, 'faults')
  const endMs = seconds * 1000
  const faults: Fault[] = []
  for (let atMs = FIRST_MS; ; atMs += random.int(GAP_MS.min, GAP_MS.max)) {
    const kind = random.weighted(WEIGHTS)
    const holdMs = random.int(HOLD_MS[kind].min, HOLD_MS[kind].max)
    if (atMs + holdMs >= endMs) break
    const fault: Fault = { atMs, kind, holdMs }
    if (kind === 'kill' || kind === 'term' || kind === 'pause') {
      fault.instance = random.int(0, instances - 1)
    }
    faults.push(fault)
  }
  return faults
}

/** How many faults of each kind `faults` holds, every kind named. */
export function countFaults(faults: readonly Fault[]): Record<FaultKind, number> {
  const counts = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<
    FaultKind,
    number
  >
  for (const { kind } of faults) counts[kind]++
  return counts
}
