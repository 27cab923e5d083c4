/** Reading standard input, bounded so that a runaway pipe cannot fill the memory or the disk. */
import { UsageError } from './errors.js'
import { formatBytes } from './units.js'

/**
 * The chunks of `stream` as buffers; more than `maxBytes` in all is refused with a usage error
 * naming `what` as soon as it is passed.
 */
export async function* boundedInput(
  stream: NodeJS.ReadableStream,
  maxBytes: number,
  what: string,
): AsyncGenerator<Buffer> {
  let total = 0
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer)
    total += buffer.length
    if (total > maxBytes) {
      throw new UsageError(`${what} is longer than this server takes (${formatBytes(maxBytes)})`)
    }
    yield buffer
  }
}

/** Standard input as text, read whole within `maxBytes`. */
export async function readStdin(
  stream: NodeJS.ReadableStream,
  maxBytes: number,
  what: string,
): Promise<string> {
  const chunks: Buffer[] = []
  for await (const buffer of boundedInput(stream, maxBytes, what)) chunks.push(buffer)
  return Buffer.concat(chunks).toString('utf8')
}
