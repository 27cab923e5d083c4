/** Installing the Debian packages a fixture needs, under CI=true where suites must not skip. */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

/**
 * Why a fixture's daemon (`what`) cannot run here, or null once it can: outside CI a missing
 * install is only reported (`skipped` says what is skipped); under CI=true the packages are
 * installed as root, or this throws.
 */
export async function installUnderCi(
  what: string,
  packages: readonly string[],
  skipped: string,
): Promise<string | null> {
  if (process.env.CI !== 'true') {
    return `${what} is not installed (apt-get install -y --no-install-recommends ${packages.join(' ')}); ${skipped}`
  }
  if (process.getuid?.() !== 0) {
    throw new Error(`CI=true: ${what} is missing and only root can install it`)
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  // Several suites may want it at once; flock makes them install one after another.
  const lock = ['/tmp/fileshare-apt.lock', 'apt-get']
  await run('flock', [...lock, 'update'], { env })
  await run('flock', [...lock, 'install', '-y', '--no-install-recommends', ...packages], { env })
  return null
}
