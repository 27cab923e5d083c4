/** A loopback port for a server that must know its address before it listens. */
import { createServer, type AddressInfo } from 'node:net'

/** A port free right now on 127.0.0.1 (another process may take it before it is used). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })
}
