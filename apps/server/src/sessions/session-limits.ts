/**
 * The limit every upload session keeps to at shutdown, whatever its writer: how long one that
 * receives nothing still holds the shutdown up.
 *
 * May touch: nothing.
 */

/** A session that received nothing for this long is not waited for at shutdown. */
export const DRAIN_QUIET_MS = 5000
