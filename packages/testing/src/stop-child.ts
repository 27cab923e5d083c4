/** Stopping a child process of a suite or benchmark without leaving it behind. */
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'

/** Whether the child has exited or was killed by a signal. */
export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null
}

/** `signal` (SIGTERM), then SIGKILL if the child has not exited within five seconds. */
export async function stopChild(
  child: ChildProcess,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  if (hasExited(child)) return
  const exited = once(child, 'exit')
  child.kill(signal)
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
  await exited
  clearTimeout(timer)
}
