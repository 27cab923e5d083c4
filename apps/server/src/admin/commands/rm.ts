/**
 * `fileshare-admin rm <id> [--reason text]`: takes an upload, a note or a request down with its
 * blobs; its id then answers 410 "Removed by the operator" (ops/takedown.ts).
 * May touch: nothing directly; through ops/takedown.ts.
 */
import { AdminError, ADMIN_EXIT } from '../admin-error.js'
import type { AdminContext } from '../context.js'
import type { CommandOutput } from '../output.js'

/** The longest takedown reason kept, in characters; it is shown to whoever opens the link. */
const TAKEDOWN_REASON_MAX_CHARS = 500

export async function rmCommand(
  ctx: AdminContext,
  id: string,
  options: { reason?: string },
): Promise<CommandOutput> {
  const reason = options.reason?.trim() || null
  if (reason !== null && [...reason].length > TAKEDOWN_REASON_MAX_CHARS) {
    throw new AdminError(`--reason is limited to ${TAKEDOWN_REASON_MAX_CHARS} characters`)
  }
  const removed = await ctx.services.takedown.remove(id.trim().toLowerCase(), reason)
  if (!removed) throw new AdminError(`no upload, note or request ${id}`, ADMIN_EXIT.notFound)
  const queued =
    removed.blobsQueued > 0 ? `; ${removed.blobsQueued} blob removals queued for cleanup` : ''
  return {
    json: { removed: { ...removed, reason } },
    text: `removed ${removed.kind} ${removed.id} with ${removed.blobs} blobs${queued}`,
  }
}
