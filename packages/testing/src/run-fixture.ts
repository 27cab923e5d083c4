/**
 * A fixture shared by every vitest project of one run: the first project whose global setup asks
 * for it starts it, and the last one's teardown stops it. Global setups run in vitest's main
 * process, but each project loads them apart, so the fixtures are kept on `globalThis`.
 */
interface Entry {
  started: Promise<unknown>
  users: number
}

const REGISTRY = Symbol.for('fileshare.test-run-fixtures')

function registry(): Map<string, Entry> {
  const holder = globalThis as { [REGISTRY]?: Map<string, Entry> }
  holder[REGISTRY] ??= new Map()
  return holder[REGISTRY]
}

/**
 * The run's fixture named `name`, started with `start` if no project has it yet; `release`
 * stops it with `stop` once every project that took it has released it.
 */
export async function takeRunFixture<T>(
  name: string,
  start: () => Promise<T>,
  stop: (fixture: T) => Promise<void>,
): Promise<{ fixture: T; release(): Promise<void> }> {
  const fixtures = registry()
  let entry = fixtures.get(name)
  if (entry === undefined) {
    entry = { started: start(), users: 0 }
    fixtures.set(name, entry)
  }
  entry.users += 1
  const taken = entry
  const fixture = (await taken.started.catch((error: unknown) => {
    if (fixtures.get(name) === taken) fixtures.delete(name)
    throw error
  })) as T
  return {
    fixture,
    async release() {
      taken.users -= 1
      if (taken.users > 0) return
      if (fixtures.get(name) === taken) fixtures.delete(name)
      await stop(fixture)
    },
  }
}
