/**
 * The upload sockets each client address has open (FILE_UPLOAD_WS_MAX_PER_IP).
 * May touch: nothing (pure).
 */
export class SocketsPerIp {
  private readonly open = new Map<string, number>()

  /** `max` sockets per address at once; 0 means no limit. */
  constructor(private readonly max: number) {}

  /** Counts one more socket for `ip` when it is under the limit; answers whether it was. */
  admit(ip: string): boolean {
    const count = this.open.get(ip) ?? 0
    if (this.max > 0 && count >= this.max) return false
    this.open.set(ip, count + 1)
    return true
  }

  /** Counts one socket of `ip` less; call once for each admitted socket, when it has closed. */
  release(ip: string): void {
    const count = this.open.get(ip) ?? 0
    if (count <= 1) this.open.delete(ip)
    else this.open.set(ip, count - 1)
  }
}
