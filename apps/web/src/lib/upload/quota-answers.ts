/** `GET /api/quota` answers for tests: an enabled quota of 1000 bytes with `remainingBytes` left. */
import type { QuotaResponse } from '@fileshare/protocol'

export function enabledQuota(remainingBytes: number, resetsAt: string): QuotaResponse {
  return {
    enabled: true,
    limitBytes: 1000,
    usedBytes: 1000 - remainingBytes,
    remainingBytes,
    windowMs: 86_400_000,
    resetsAt,
  }
}
