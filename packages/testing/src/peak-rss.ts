/**
 * A child process's peak resident memory, measured inside it by a preload module rather than by
 * a hook in the program under test.
 */
import type { ChildProcess, StdioOptions } from 'node:child_process'
import { fileURLToPath } from 'node:url'

import { PEAK_RSS_FD } from './peak-rss-fd.js'

const PRELOAD = fileURLToPath(new URL('./peak-rss-preload.js', import.meta.url))

/** Node's options that load the preload; put them before the script. */
export const PEAK_RSS_NODE_ARGS: readonly string[] = ['--import', PRELOAD]

/** `stdio` for spawn with the report pipe besides stdin, stdout and stderr. */
export const PEAK_RSS_STDIO: StdioOptions = ['pipe', 'pipe', 'pipe', 'pipe']

/** The child's peak RSS in bytes once it exits, or undefined if it never reported (killed). */
export function peakRssOf(child: ChildProcess): Promise<number | undefined> {
  const pipe = child.stdio[PEAK_RSS_FD]
  if (!pipe || !('setEncoding' in pipe)) throw new Error('spawn the child with PEAK_RSS_STDIO')
  let text = ''
  pipe.setEncoding('utf8')
  pipe.on('data', (part: string) => (text += part))
  return new Promise((resolve) => {
    pipe.once('close', () => resolve(/^\d+$/m.test(text) ? Number(text.trim()) : undefined))
  })
}
