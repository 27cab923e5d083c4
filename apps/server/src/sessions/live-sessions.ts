/**
 * The keys of every upload session that may still write bytes, on any instance, one source per
 * kind of session: the sweeps by age leave what these wrote alone.
 * May touch: nothing directly; asks the sources it is given.
 */
/** The union of what the sources answer, read afresh on every call. */
export function liveSessionKeys(
  sources: readonly (() => Iterable<string> | Promise<Iterable<string>>)[],
): () => Promise<ReadonlySet<string>> {
  return async () => {
    const keys = new Set<string>()
    for (const source of sources) for (const key of await source()) keys.add(key)
    return keys
  }
}
