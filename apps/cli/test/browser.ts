/**
 * Plays the browser in a login: keeps cookies per origin, follows redirects by hand, and fills
 * in the development login and consent forms of the test OIDC provider.
 */
export class Browser {
  private readonly jar = new Map<string, Map<string, string>>()

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const origin = new URL(url).origin
    const cookies = this.jar.get(origin) ?? new Map<string, string>()
    this.jar.set(origin, cookies)
    const headers = new Headers(init.headers)
    if (cookies.size > 0) {
      headers.set('cookie', [...cookies].map(([name, value]) => `${name}=${value}`).join('; '))
    }
    const response = await fetch(url, { ...init, headers, redirect: 'manual' })
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim())
      const eq = pair.indexOf('=')
      const name = pair.slice(0, eq)
      const value = pair.slice(eq + 1)
      const expired = value === '' || attributes.some((a) => /^max-age=0$/i.test(a))
      if (expired) cookies.delete(name)
      else cookies.set(name, value)
    }
    return response
  }

  /**
   * Follows redirects and submits the provider's forms from `url` until a redirect points at
   * `stopAt`; answers that address without requesting it.
   */
  async follow(url: string, stopAt: string, login = 'ada'): Promise<string> {
    let next = url
    let init: RequestInit = {}
    for (let step = 0; step < 25; step++) {
      if (next.startsWith(stopAt)) return next
      const response = await this.fetch(next, init)
      init = {}
      const location = response.headers.get('location')
      if (response.status >= 300 && response.status < 400 && location !== null) {
        next = new URL(location, next).href
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
