/**
 * Loaded into a process under test with `node --import` (see peak-rss.ts): when the process
 * exits, writes its peak resident memory in bytes to the pipe the test opened as fd 3.
 */
import { readFileSync, writeSync } from 'node:fs'

import { PEAK_RSS_FD } from './peak-rss-fd.js'

/**
 * VmHWM, which starts afresh at exec, where getrusage's maxRSS also counts the parent's memory
 * copied by the fork that started the process.
 */
function peakRss(): number {
  try {
    const kib = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]
    if (kib !== undefined) return Number(kib) * 1024
  } catch {
    // Not Linux: the portable figure below.
  }
  return process.resourceUsage().maxRSS * 1024
}

process.on('exit', () => {
  writeSync(PEAK_RSS_FD, `${peakRss()}\n`)
})
