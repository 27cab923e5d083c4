/**
 * Plays the browser in an OIDC login: keeps cookies per origin, follows redirects by hand, and
 * fills in the development login and consent forms of the test provider (oidc-provider.ts).
 */

/** The absolute target of a redirect answer. */
export function location(response: Response, base: string): string {
  const target = response.headers.get('location')
  if (target === null) throw new Error(`no redirect: ${response.status}`)
  return new URL(target, base).href
}

export class Browser {
  private readonly jar = new Map<string, Map<string, string>>()
  /** The raw `Set-Cookie` lines of the last response. */
  lastSetCookies: string[] = []

  cookie(url: string, name: string): string | undefined {
    return this.jar.get(new URL(url).origin)?.get(name)
  }

  /** Sets a cookie for `url`'s origin, or removes it when `value` is undefined. */
  setCookie(url: string, name: string, value: string | undefined): void {
    const origin = new URL(url).origin
    const cookies = this.jar.get(origin) ?? new Map<string, string>()
    this.jar.set(origin, cookies)
    if (value === undefined) cookies.delete(name)
    else cookies.set(name, value)
  }

  /** One request with this origin's cookies and no redirect followed; keeps what it sets. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const cookies = [...(this.jar.get(new URL(url).origin) ?? new Map<string, string>())]
    const headers = new Headers(init.headers)
    if (cookies.length > 0) headers.set('cookie', cookies.map(([n, v]) => `${n}=${v}`).join('; '))
    const response = await fetch(url, { ...init, headers, redirect: 'manual' })
    this.lastSetCookies = response.headers.getSetCookie()
    for (const line of this.lastSetCookies) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim())
      const eq = pair.indexOf('=')
      const removed =
        pair.slice(eq + 1) === '' ||
        attributes.some((a) => /^max-age=0$/i.test(a)) ||
        attributes.some((a) => /^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now())
      this.setCookie(url, pair.slice(0, eq), removed ? undefined : pair.slice(eq + 1))
    }
    return response
  }

  /**
   * Follows redirects and submits the provider's forms from `url` (signing in as `login`) until a
   * redirect points at `stopAt`; answers that address without requesting it.
   */
  async follow(url: string, stopAt: string, login = 'ada'): Promise<string> {
    let next = url
    let init: RequestInit = {}
    for (let step = 0; step < 25; step++) {
      if (next.startsWith(stopAt)) return next
      const response = await this.fetch(next, init)
      init = {}
      if (response.status >= 300 && response.status < 400) {
        next = location(response, next)
        continue
      }
      const html = await response.text()
      if (response.status !== 200) throw new Error(`${response.status} at ${next}: ${html}`)
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]
      if (action === undefined) throw new Error(`no form at ${next}: ${html}`)
      const form = new URLSearchParams()
      for (const [, name = '', value = ''] of html.matchAll(
        /<input type="hidden" name="([^"]+)" value="([^"]*)"/g,
      )) {
        form.set(name, value)
      }
      if (html.includes('name="login"')) {
        form.set('login', login)
        form.set('password', 'any password')
      }
      next = new URL(action, next).href
      init = { method: 'POST', body: form }
    }
    throw new Error(`never reached ${stopAt}`)
  }
}
