/**
 * The command line's own folder and the JSON files in it. The folder is 0700 and every file 0600:
 * they hold session tokens, owner tokens and share links, which are secrets. Writes go to a
 * temporary file renamed over the old one, under a lock file, so that two commands running at once
 * neither corrupt a file nor lose each other's changes.
 */
import { randomBytes } from 'node:crypto'
import { chmod, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises'
import { homedir } from 'node:os'
import { isAbsolute, join } from 'node:path'

export const DIR_MODE = 0o700
export const FILE_MODE = 0o600

const LOCK_WAIT_MS = 10_000
const LOCK_STALE_MS = 30_000

/** `$XDG_CONFIG_HOME/fileshare`, else `~/.config/fileshare` (a relative XDG path is ignored). */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.config')
  return join(base, 'fileshare')
}

/** Creates the folder 0700, and narrows it to 0700 if an older version left it wider. */
export async function ensureConfigDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: DIR_MODE })
  const { mode } = await stat(dir)
  if ((mode & 0o777) !== DIR_MODE) await chmod(dir, DIR_MODE)
}

/** The parsed file, or undefined when it does not exist. A file that is not JSON is an error. */
export async function readJsonFile(path: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  try {
    return JSON.parse(text) as unknown
  } catch (cause) {
    throw new Error(`${path} is not valid JSON; fix or remove it`, { cause })
  }
}

/** Replaces the file with `value` as JSON, mode 0600, in one rename. */
export async function writeJsonFile(path: string, value: unknown): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`
  const handle = await open(temporary, 'wx', FILE_MODE)
  try {
    await handle.writeFile(`${JSON.stringify(value, null, 2)}\n`)
    await handle.sync()
  } finally {
    await handle.close()
  }
  try {
    // The mode given to open() is narrowed by the umask only, never widened; chmod makes it exact.
    await chmod(temporary, FILE_MODE)
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
}

/**
 * Reads the file, lets `change` compute the new content and writes it, holding `<path>.lock`
 * throughout. `change` answers undefined to leave the file as it is.
 */
export async function updateJsonFile<T>(
  path: string,
  change: (current: unknown) => T | undefined,
): Promise<T | undefined> {
  const release = await lock(`${path}.lock`)
  try {
    const next = change(await readJsonFile(path))
    if (next !== undefined) await writeJsonFile(path, next)
    return next
  } finally {
    await release()
  }
}

async function lock(path: string): Promise<() => Promise<void>> {
  const deadline = Date.now() + LOCK_WAIT_MS
  for (;;) {
    try {
      const handle = await open(path, 'wx', FILE_MODE)
      await handle.close()
      return () => rm(path, { force: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    // A lock left by a killed process would block every later command; old enough, it is broken.
    const age = await stat(path).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    )
    if (age > LOCK_STALE_MS) await rm(path, { force: true })
    else if (Date.now() > deadline) throw new Error(`${path} is held by another fileshare command`)
    else await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
