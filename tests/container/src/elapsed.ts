/** Time since `since` (Date.now()), in seconds for the suite's log. */
export function seconds(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`
}
