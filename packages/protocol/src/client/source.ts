/**
 * What an upload sends: plaintext of a known size, readable as a stream as often as needed. A
 * browser `Blob` or `File` satisfies it; the command line makes one from a path or an archive
 * (`createZipStream` with `zipSize`).
 */
import { ProtocolError } from '../errors.js'

export interface PayloadSource {
  /** Exact plaintext size in bytes; the stream must yield exactly this many. */
  size: number
  /** A fresh stream of the plaintext from its first byte. */
  stream(): ReadableStream<Uint8Array>
  /**
   * A fresh stream of the plaintext from byte `offset` (a resumed upload). Without it a Blob is
   * sliced there, and any other source is read from the start with the bytes before `offset`
   * dropped.
   */
  streamFrom?(offset: number): ReadableStream<Uint8Array>
  /**
   * What holds the plaintext bytes [start, end), for an error saying it changed: the file's
   * name, or the one archive entry there (undefined when several share them). Without it a
   * `File`'s own name is used.
   */
  nameAt?(start: number, end: number): string | undefined
}

/** The name of what holds the plaintext bytes [start, end) of `source`, when one thing does. */
export function sourceNameAt(
  source: PayloadSource,
  start: number,
  end: number,
): string | undefined {
  if (source.nameAt) return source.nameAt(start, end)
  const name = (source as { name?: unknown }).name
  return typeof name === 'string' && name !== '' ? name : undefined
}

/** A source over bytes already in memory (notes sent into a request, tests). */
export function bytesSource(bytes: Uint8Array): PayloadSource {
  return {
    size: bytes.length,
    stream: () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          if (bytes.length > 0) controller.enqueue(bytes)
          controller.close()
        },
      }),
  }
}

/**
 * The source's stream from byte `from` (default 0), failing with BAD_INPUT as soon as it yields
 * more bytes than `size`, or at its end when it yielded fewer: a file that changed while it was
 * read must not be sent.
 */
export function exactSize(source: PayloadSource, from = 0): ReadableStream<Uint8Array> {
  let count = from
  return streamFrom(source, from).pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        count += chunk.length
        if (count > source.size) throw sizeChanged()
        controller.enqueue(chunk)
      },
      flush() {
        if (count !== source.size) throw sizeChanged()
      },
    }),
  )
}

/**
 * The plaintext from byte `from`: a Blob (a picked File) is read from there, as a source with
 * `streamFrom` is, so that a resume near the end of a large file does not read it all again.
 */
function streamFrom(source: PayloadSource, from: number): ReadableStream<Uint8Array> {
  if (from === 0) return source.stream()
  if (source.streamFrom) return source.streamFrom(from)
  if (typeof Blob !== 'undefined' && source instanceof Blob) return source.slice(from).stream()
  return source.stream().pipeThrough(dropBytes(from))
}

/** A transform that drops the first `count` bytes and passes the rest on unchanged. */
export function dropBytes(count: number): TransformStream<Uint8Array, Uint8Array> {
  let left = count
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      if (left >= chunk.length) {
        left -= chunk.length
        return
      }
      controller.enqueue(left === 0 ? chunk : chunk.subarray(left))
      left = 0
    },
  })
}

function sizeChanged(): ProtocolError {
  return new ProtocolError('BAD_INPUT', 'The data to send is not the size it was said to be')
}
