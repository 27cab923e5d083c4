/** Reading text from standard input, bounded so that a runaway pipe cannot fill the memory. */
import { UsageError } from './errors.js'
import { formatBytes } from './units.js'

export async function readStdin(
  stream: NodeJS.ReadableStream,
  maxBytes: number,
  what: string,
): Promise<string> {
  const chunks: Buffer[] = []
  let total = 0
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer)
    total += buffer.length
    if (total > maxBytes) {
      throw new UsageError(`${what} is longer than this server takes (${formatBytes(maxBytes)})`)
    }
    chunks.push(buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}
