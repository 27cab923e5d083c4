/**
 * The server's `/api/config` answer, loaded once at start; pages read limits, options and
 * branding from it. Branding is applied through the CSSOM, which the Content-Security-Policy
 * allows (inline style attributes it does not).
 */
import type { ConfigResponse } from '@fileshare/protocol'

import { pageApi } from '../api'
import { applyServerLocales } from '../i18n/locale.svelte'

interface ConfigState {
  value: ConfigResponse | null
  error: unknown
  loading: boolean
}

export const config: ConfigState = $state({ value: null, error: null, loading: false })

let pending: Promise<ConfigResponse> | undefined

/** Loads the config (once; a failed load can be retried by calling again). */
export function loadConfig(): Promise<ConfigResponse> {
  if (config.value) return Promise.resolve(config.value)
  if (pending) return pending
  config.loading = true
  config.error = null
  pending = pageApi()
    .config()
    .then((value) => {
      config.value = value
      applyBranding(value)
      void applyServerLocales(value.locales, value.defaultLocale)
      return value
    })
    .catch((error: unknown) => {
      config.error = error
      throw error
    })
    .finally(() => {
      config.loading = false
      pending = undefined
    })
  return pending
}

/** A CSS colour the config may set; anything else is ignored rather than injected. */
const SAFE_COLOR = /^(#[0-9a-f]{3,8}|(rgb|rgba|hsl|hsla)\([\d\s.,%/-]+\)|[a-z]{3,20})$/i

/** The brand colour; the title is the layout's, which names each page with the site (App.svelte). */
export function applyBranding(value: Pick<ConfigResponse, 'customColor'>): void {
  const root = document.documentElement
  if (value.customColor && SAFE_COLOR.test(value.customColor.trim())) {
    root.style.setProperty('--brand', value.customColor.trim())
  } else {
    root.style.removeProperty('--brand')
  }
}
