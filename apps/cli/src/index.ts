#!/usr/bin/env node
/** Entry point of the `fileshare` command. */
import { readFileSync } from 'node:fs'

import { main } from './main.js'

/**
 * Peak resident memory of this process in bytes: VmHWM, which starts afresh at exec, where
 * getrusage's maxRSS also counts the parent's memory copied by the fork that started us.
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

// A reader that stopped early (`fileshare ls | head`) is not an error of this command.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    throw error
  })
}

const code = await main()
if (process.env.FILESHARE_REPORT_RSS === '1') {
  // For the tests and the benchmark.
  process.stderr.write(`fileshare: peak-rss-bytes ${peakRss()}\n`)
}
// Idle keep-alive sockets must not hold a finished command open: flush, then exit.
await new Promise((resolve) => process.stdout.write('', resolve))
await new Promise((resolve) => process.stderr.write('', resolve))
process.exit(code)
