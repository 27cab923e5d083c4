/**
 * Node's socket errors of a server that is down or cannot be reached.
 * May touch: nothing (pure).
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
])

/** Whether `error` itself carries the code of a server out of reach. */
export function isNetworkFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && NETWORK_CODES.has(code)
}
