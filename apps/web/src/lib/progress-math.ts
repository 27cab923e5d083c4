/**
 * Speed and time-left estimates for progress displays: the rate over a sliding window of recent
 * samples, so a stall or a burst shows within seconds without the figure jumping on every chunk.
 */

export interface RateSample {
  /** Milliseconds (any monotonic clock). */
  at: number
  bytes: number
}

export const RATE_WINDOW_MS = 5_000

/** Keeps the samples of the last window (and one older, as the window's start). */
export function addSample(
  samples: readonly RateSample[],
  sample: RateSample,
  windowMs = RATE_WINDOW_MS,
): RateSample[] {
  const next = [...samples, sample]
  let start = 0
  while (start < next.length - 2 && next[start + 1]!.at <= sample.at - windowMs) start++
  return next.slice(start)
}

/** Bytes per second over the samples; null until there is a measurable interval. */
export function rateOf(samples: readonly RateSample[]): number | null {
  if (samples.length < 2) return null
  const first = samples[0]!
  const last = samples[samples.length - 1]!
  const ms = last.at - first.at
  if (ms <= 0) return null
  return ((last.bytes - first.bytes) * 1000) / ms
}

/** Seconds left at `rate`; null when the rate is unknown or zero. 0 once everything is done. */
export function etaSeconds(done: number, total: number, rate: number | null): number | null {
  if (done >= total) return 0
  if (rate === null || rate <= 0) return null
  return (total - done) / rate
}
