/**
 * Who is signed in (`/auth/session`) and whether a kind of creation needs a sign-in first, so
 * pages can offer "Sign in" instead of running into a 401.
 */
import type { SessionResponse } from '@fileshare/protocol'

import { pageApi } from '../api'
import { config } from './config.svelte'

export type CreationKind = 'files' | 'notes' | 'requests'

interface SessionState {
  user: SessionResponse | null
  /** True once `/auth/session` answered (or was skipped because login is off). */
  loaded: boolean
}

export const session: SessionState = $state({ user: null, loaded: false })

/** Reads the session when the server has login enabled. */
export async function loadSession(loginEnabled: boolean): Promise<void> {
  if (!loginEnabled) {
    session.user = null
    session.loaded = true
    return
  }
  try {
    session.user = await pageApi().session()
  } catch {
    // An unreachable session route leaves the user signed out; creation then asks to sign in.
    session.user = null
  }
  session.loaded = true
}

/** True when creating `kind` needs a sign-in that is missing. */
export function needsLogin(kind: CreationKind): boolean {
  const value = config.value
  if (!value || !value.loginEnabled || !value.loginRequired[kind]) return false
  return session.user === null
}

/** Where "Sign in" goes: the server's login route, which returns to `/` afterwards. */
export const LOGIN_URL = '/auth/login'
export const LOGOUT_URL = '/auth/logout'

/** The name to show for the signed-in user. */
export function displayName(user: SessionResponse): string {
  return user.name || user.email || user.sub
}
