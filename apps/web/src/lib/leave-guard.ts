/**
 * Work that leaving the page would stop: an upload under way, a download being saved. While any
 * is held, the browser asks before the tab is closed, reloaded or sent elsewhere
 * (`beforeunload`), and the app's own links ask before moving to another page (`leaveAllowed`).
 * A page holds with `holdPage()` for as long as its work runs and calls what it returns after, or
 * from an effect with `holdWhile(busy)`.
 */
let holds = 0

function onBeforeUnload(event: BeforeUnloadEvent): void {
  event.preventDefault()
  // Older browsers ask only when a return value is set.
  event.returnValue = ''
}

export function holdPage(): () => void {
  if (holds++ === 0) window.addEventListener('beforeunload', onBeforeUnload)
  let released = false
  return () => {
    if (released) return
    released = true
    if (--holds === 0) window.removeEventListener('beforeunload', onBeforeUnload)
  }
}

/** Whether an in-app move may go ahead: nothing is held, or the user says to leave anyway. */
export function leaveAllowed(question: string): boolean {
  return holds === 0 || window.confirm(question)
}

/** For an effect: holds the page while `busy`; the hold ends when the effect runs again or ends. */
export function holdWhile(busy: boolean): (() => void) | undefined {
  return busy ? holdPage() : undefined
}
