/** The resident memory of a process the tests spawned (Linux: /proc/<pid>/status). */
import { readFile } from 'node:fs/promises'

/** The process's resident set now and at its peak so far, in MB. */
export async function residentMb(pid: number): Promise<{ now: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1])
  return { now: (kb('VmRSS') * 1024) / 1e6, peak: (kb('VmHWM') * 1024) / 1e6 }
}
