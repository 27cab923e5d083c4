/**
 * A file dropped where no drop zone takes it makes the browser open that file in this tab, leaving
 * the app: an upload under way would be lost, and with it the new share link, whose key exists
 * nowhere else. The app's window refuses every drag of files that no zone took (a zone calls
 * `preventDefault` on what it takes), so the pointer shows that it cannot be dropped there and a
 * drop does nothing.
 */
/** Whether a drag carries files (not text or a link). */
export function carriesFiles(event: DragEvent): boolean {
  return Array.from(event.dataTransfer?.types ?? []).includes('Files')
}

export function refuseStrayDrop(event: DragEvent): void {
  if (event.defaultPrevented || !carriesFiles(event)) return
  event.preventDefault()
  if (event.dataTransfer) event.dataTransfer.dropEffect = 'none'
}
