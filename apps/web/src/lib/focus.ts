/**
 * Moves keyboard focus to an element as it appears: a result or a notice that replaces the
 * form or button that was just used, so focus does not fall back to the start of the page and a
 * screen reader reads what happened. Used as a Svelte action (`use:focusOnMount`).
 */
export function focusOnMount(node: HTMLElement): void {
  // Focusable from script only, not a stop of its own in the tab order.
  if (!node.hasAttribute('tabindex')) node.setAttribute('tabindex', '-1')
  queueMicrotask(() => node.focus())
}
