/**
 * When a timer may judge a peer silent: libuv runs timers before the reads of an event-loop turn,
 * so a timer's callback can find a pong or a frame already delivered to the process but not yet
 * read. Verdicts on silence are deferred here to the end of the turn, after its reads.
 * May touch: timers.
 */
export function afterReads(verdict: () => void): void {
  setImmediate(verdict)
}
