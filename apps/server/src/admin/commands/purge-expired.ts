/**
 * `fileshare-admin purge-expired`: what the cleanup job removes, now.
 * May touch: nothing directly; runs the cleanup job (ops/cleanup.ts).
 */
import { ADMIN_EXIT } from '../admin-error.js'
import type { AdminContext } from '../context.js'
import type { CommandOutput } from '../output.js'

export async function purgeExpiredCommand(ctx: AdminContext): Promise<CommandOutput> {
  const done = await ctx.cleanup.purgeExpired()
  const report = {
    uploadsRemoved: done.uploadsRemoved,
    notesRemoved: done.notesRemoved,
    requestUploadsRemoved: done.requestUploadsRemoved,
    requestsRemoved: done.requestsRemoved,
    tombstonesPurged: done.tombstonesPurged,
    apiTokensPurged: done.apiTokensPurged,
    blobsRetried: done.blobsRetried,
    blobsQueued: done.blobsQueued,
    blobsHeld: done.blobsHeld,
    failedSteps: done.failedSteps,
  }
  const text = [
    `uploads          ${report.uploadsRemoved}`,
    `notes            ${report.notesRemoved}`,
    `request uploads  ${report.requestUploadsRemoved}`,
    `requests         ${report.requestsRemoved}`,
    `tombstones       ${report.tombstonesPurged}`,
    `API tokens       ${report.apiTokensPurged}`,
    `blobs retried    ${report.blobsRetried} (${report.blobsQueued} queued, ${report.blobsHeld} held)`,
    ...(report.failedSteps.length > 0 ? [`failed steps     ${report.failedSteps.join(', ')}`] : []),
  ].join('\n')
  // A failed step was logged to stderr; the exit code says so too.
  return { json: report, text, exitCode: report.failedSteps.length > 0 ? ADMIN_EXIT.failure : 0 }
}
