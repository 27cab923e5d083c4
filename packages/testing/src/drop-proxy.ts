/**
 * A TCP proxy that loses connections on purpose: it forwards to a target and, when the bytes
 * sent from clients to the target, or back (counted over every connection), reach each of the
 * given counts, destroys every connection open at that moment, as a network that drops would. After
 * a drop it may refuse new connections for a while (a link that is away). For the suites and
 * benchmarks of resumed uploads.
 */
import { createServer, connect, type Socket } from 'node:net'

export interface DropProxyOptions {
  /** Where connections go. */
  targetHost?: string
  targetPort: number
  /**
   * Client-to-target byte counts, ascending, at which every open connection is destroyed: the
   * bytes up to each count are forwarded, none past it on the connections cut.
   */
  dropAt: readonly number[]
  /**
   * How long after a drop new connections are refused, in milliseconds (default 0); `Infinity`
   * refuses them until `restore()`.
   */
  downMs?: number
  /**
   * Which bytes `dropAt` counts: `up` (client to target, the default, for uploads) or `down`
   * (target to client, for downloads).
   */
  direction?: 'up' | 'down'
  /** The loopback port to listen on; a free one by default. */
  port?: number
  /** Told of each drop as it happens, before a client can see it: its number, from 1. */
  onDrop?: (drops: number) => void
}

export interface DropProxy {
  /** `http://127.0.0.1:<port>`. */
  url: string
  port: number
  /** Drops so far. */
  readonly drops: number
  /** Bytes forwarded so far in the counted direction. */
  readonly forwarded: number
  /** Ends the refusal after a drop at once: new connections are taken again. */
  restore(): void
  /** Drops every open connection now, as a count reached would (a cut at a moment, not a count). */
  cut(): void
  close(): Promise<void>
}

/** Starts the proxy on a free loopback port. */
export async function startDropProxy(options: DropProxyOptions): Promise<DropProxy> {
  const host = options.targetHost ?? '127.0.0.1'
  const pending = [...options.dropAt].sort((a, b) => a - b)
  const open = new Set<Socket>()
  let forwarded = 0
  let drops = 0
  let downUntil = 0

  const dropAll = () => {
    drops++
    options.onDrop?.(drops)
    downUntil = Date.now() + (options.downMs ?? 0)
    for (const socket of open) socket.destroy()
    open.clear()
  }

  const server = createServer((client) => {
    if (Date.now() < downUntil) {
      client.destroy()
      return
    }
    const upstream = connect(options.targetPort, host)
    open.add(client)
    open.add(upstream)
    const end = () => {
      client.destroy()
      upstream.destroy()
      open.delete(client)
      open.delete(upstream)
    }
    client.on('error', end).on('close', end)
    upstream.on('error', end).on('close', end)
    const [from, to] = options.direction === 'down' ? [upstream, client] : [client, upstream]
    to.pipe(from)
    from.on('data', (chunk: Buffer) => {
      const next = pending[0]
      if (next !== undefined && forwarded + chunk.length >= next) {
        const part = next - forwarded
        pending.shift()
        forwarded = next
        // The bytes up to the count go out before the cut; the socket is destroyed once written.
        if (part > 0) to.write(chunk.subarray(0, part), dropAll)
        else dropAll()
        return
      }
      forwarded += chunk.length
      if (!to.write(chunk)) {
        from.pause()
        to.once('drain', () => from.resume())
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get drops() {
      return drops
    },
    get forwarded() {
      return forwarded
    },
    restore() {
      downUntil = 0
    },
    cut: dropAll,
    close: async () => {
      for (const socket of open) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** `count` drop points `every` bytes apart: `every`, `2 * every`, … */
export function dropsEvery(every: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => (i + 1) * every)
}

/** One round of a drop run: the same upload with drops and without, one after the other. */
export interface DropRound {
  droppedMs: number
  steadyMs: number
}

/**
 * The round whose ratio (without drops to with) is the median, the lower of the middle two for
 * an even count. Each round's two uploads run back to back, so load from elsewhere weighs on
 * both; the median, unlike a best of each, does not pick the luckiest of the random waits before
 * a resume.
 */
export function medianDropRound<R extends DropRound>(rounds: readonly R[]): R {
  if (rounds.length === 0) throw new Error('a drop run needs at least one round')
  const ratio = (round: R) => round.steadyMs / round.droppedMs
  const sorted = [...rounds].sort((a, b) => ratio(a) - ratio(b))
  return sorted[Math.floor((sorted.length - 1) / 2)]!
}
