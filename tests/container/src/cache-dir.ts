/** Where this suite keeps what may outlive one run on a machine: the containers.conf and work dirs. */
import { homedir } from 'node:os'
import { join } from 'node:path'

export function cacheDir(): string {
  return join(
    process.env.XDG_CACHE_HOME || join(homedir(), '.cache'),
    'fileshare-test',
    'container',
  )
}
