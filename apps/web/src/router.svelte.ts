/**
 * A small history-API router: the current path as reactive state, `navigate()` for in-app moves,
 * and the link interception that keeps ordinary `<a href="/…">` elements inside the app.
 */
import { t } from './lib/i18n/t'
import { leaveAllowed } from './lib/leave-guard'
import { inAppTarget } from './route-match'

export { inAppTarget, matchPattern } from './route-match'

class Router {
  path = $state(typeof location === 'undefined' ? '/' : location.pathname)
  /** Changes on every navigation, so pages can react to a new fragment on the same path. */
  href = $state(typeof location === 'undefined' ? '/' : location.href)

  /** Moves to `to` (a path, optionally with query and fragment) without reloading. */
  navigate(to: string, options: { replace?: boolean } = {}): void {
    if (options.replace) history.replaceState(null, '', to)
    else history.pushState(null, '', to)
    this.sync()
    window.scrollTo(0, 0)
  }

  sync(): void {
    this.path = location.pathname
    this.href = location.href
  }
}

export const router = new Router()

/** Starts following back/forward and clicks on in-app links; returns the undo. */
export function startRouter(): () => void {
  const onPop = () => {
    // Back or forward has already moved the address; to stay, the page puts its own back.
    if (location.pathname !== router.path && !leaveAllowed(t('app.leaveBusy'))) {
      history.pushState(null, '', router.href)
      return
    }
    router.sync()
  }
  const onClick = (event: MouseEvent) => {
    const target = inAppTarget(event, location.origin)
    if (target === null) return
    event.preventDefault()
    // Another page would stop the upload or download under way here.
    const otherPage = target.split(/[?#]/)[0] !== location.pathname
    if (otherPage && !leaveAllowed(t('app.leaveBusy'))) return
    router.navigate(target)
  }
  window.addEventListener('popstate', onPop)
  window.addEventListener('hashchange', onPop)
  document.addEventListener('click', onClick)
  return () => {
    window.removeEventListener('popstate', onPop)
    window.removeEventListener('hashchange', onPop)
    document.removeEventListener('click', onClick)
  }
}
