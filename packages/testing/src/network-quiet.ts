/**
 * A lock between the suites whose work adds and removes the host's network interfaces (the
 * container suite: podman gives each container a veth pair) and the browser suite, whose Chromium
 * fails every request in flight with net::ERR_NETWORK_CHANGED when an interface comes or goes,
 * leaving a page with half its modules. Each suite holds it for its whole run, so the two take
 * turns when a test run starts them side by side. A holder that died leaves a lock the next one
 * takes over.
 * May touch: the file system (the lock folder in the temporary folder); timers; stdout.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const NETWORK_QUIET_LOCK = join(tmpdir(), 'fileshare-network-quiet.lock')

export interface NetworkQuietOptions {
  /** The lock folder; NETWORK_QUIET_LOCK by default. */
  lock?: string
  /** How long to wait for the other holder before failing; 30 minutes by default. */
  maxWaitMs?: number
  /** How often to look again while another holds it. */
  pollMs?: number
}

/** A lock without its owner file for this long is one whose holder died while taking it. */
const OWNER_GRACE_MS = 10_000

interface Owner {
  pid: number
  holder: string
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

async function ownerOf(lock: string): Promise<Owner | null> {
  try {
    return JSON.parse(await readFile(join(lock, 'owner'), 'utf8')) as Owner
  } catch {
    return null
  }
}

/**
 * Takes the lock for `holder` (named in the other suite's wait message), waiting while another
 * living process holds it; answers its release.
 */
export async function holdNetworkQuiet(
  holder: string,
  options: NetworkQuietOptions = {},
): Promise<() => Promise<void>> {
  const lock = options.lock ?? NETWORK_QUIET_LOCK
  const maxWaitMs = options.maxWaitMs ?? 30 * 60_000
  const pollMs = options.pollMs ?? 500
  const started = Date.now()
  let ownerless: number | null = null
  let told = false
  for (;;) {
    try {
      await mkdir(lock)
      await writeFile(join(lock, 'owner'), JSON.stringify({ pid: process.pid, holder }))
      return () => rm(lock, { recursive: true, force: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const owner = await ownerOf(lock)
    const now = Date.now()
    if (owner === null) ownerless ??= now
    else ownerless = null
    const dead = owner ? !alive(owner.pid) : now - (ownerless ?? now) > OWNER_GRACE_MS
    if (dead) {
      await rm(lock, { recursive: true, force: true })
      continue
    }
    if (now - started > maxWaitMs) {
      throw new Error(`${holder}: ${owner?.holder ?? 'another run'} held ${lock} too long`)
    }
    if (!told && owner) {
      console.log(`${holder} waits for ${owner.holder} (pid ${owner.pid}) to end`)
      told = true
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs))
  }
}
