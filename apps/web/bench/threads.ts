/**
 * BENCH_WEB_THREADS=1: the CPU time each thread of the benchmark (this process, with the server
 * in it) and of Chromium's processes spent during one measured step, from /proc (Linux only).
 * A profile of the JavaScript alone misses the browser's network process, its file writer and
 * the service worker's thread, which is where much of a transfer's time goes.
 */
import { readdir, readFile } from 'node:fs/promises'

interface ThreadTime {
  /** `<process kind>:<pid>/<thread name>:<tid>`, e.g. `renderer:7/DedicatedWorker:9`. */
  name: string
  ticks: number
}

const TICKS_PER_SECOND = 100

async function children(): Promise<Map<number, number[]>> {
  const map = new Map<number, number[]>()
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry)
    if (!Number.isInteger(pid)) continue
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    if (!map.has(ppid)) map.set(ppid, [])
    map.get(ppid)!.push(pid)
  }
  return map
}

async function kindOf(pid: number): Promise<string> {
  if (pid === process.pid) return 'node'
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')
  // Chromium rewrites its command line with spaces between the arguments.
  const args = cmdline.split(/[\0 ]/)
  const type = args.find((a) => a.startsWith('--type='))?.slice('--type='.length)
  const sub = args
    .find((a) => a.startsWith('--utility-sub-type='))
    ?.split('.')
    .pop()
  return sub ?? type ?? 'browser'
}

async function snapshot(): Promise<Map<string, ThreadTime>> {
  const tree = await children()
  const pids: number[] = []
  const walk = (pid: number) => {
    pids.push(pid)
    for (const child of tree.get(pid) ?? []) walk(child)
  }
  walk(process.pid)
  const times = new Map<string, ThreadTime>()
  for (const pid of pids) {
    const kind = `${await kindOf(pid)}:${pid}`
    const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[])
    for (const tid of tasks) {
      const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => '')
      if (!stat) continue
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const ticks = Number(fields[11]) + Number(fields[12])
      times.set(`${pid}/${tid}`, { name: `${kind}/${comm}:${tid}`, ticks })
    }
  }
  return times
}

/** Starts counting; the answer prints the step's busiest threads (CPU ms) and their total. */
export async function threadTimes(label: string): Promise<() => Promise<void>> {
  if (!process.env.BENCH_WEB_THREADS) return async () => undefined
  const before = await snapshot()
  const start = performance.now()
  return async () => {
    const wall = performance.now() - start
    const after = await snapshot()
    const byName = new Map<string, number>()
    for (const [key, time] of after) {
      const spent = time.ticks - (before.get(key)?.ticks ?? 0)
      if (spent > 0) byName.set(time.name, (byName.get(time.name) ?? 0) + spent)
    }
    const rows = [...byName].sort((a, b) => b[1] - a[1])
    const total = rows.reduce((sum, [, ticks]) => sum + ticks, 0)
    const ms = (ticks: number) => Math.round((ticks * 1000) / TICKS_PER_SECOND)
    console.log(`${label}: ${Math.round(wall)} ms wall, ${ms(total)} ms CPU in all threads`)
    for (const [name, ticks] of rows.slice(0, 16)) {
      console.log(`  ${String(ms(ticks)).padStart(6)} ms  ${name}`)
    }
  }
}
