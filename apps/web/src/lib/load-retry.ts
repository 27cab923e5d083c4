/**
 * Loads a page's code again when it failed to arrive: a connection that dropped for a moment
 * (the same drop an upload resumes from) must not leave the page on "could not be loaded".
 */

/** The waits between attempts: about five seconds in all before the page gives up. */
export const LOAD_RETRY_DELAYS_MS: readonly number[] = [500, 1500, 3000]

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Runs `load`, and again after each of `delaysMs` while it fails; throws its last failure. */
export async function loadWithRetries<T>(
  load: () => Promise<T>,
  delaysMs: readonly number[] = LOAD_RETRY_DELAYS_MS,
  sleep: (ms: number) => Promise<void> = wait,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await load()
    } catch (error) {
      const delay = delaysMs[attempt]
      if (delay === undefined) throw error
      await sleep(delay)
    }
  }
}
