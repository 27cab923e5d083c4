// @vitest-environment jsdom
import { describe, expect, it } from 'vitest'

import { inAppTarget, matchPattern } from './route-match'
import { matchRoute, notFoundRoute, routes } from './routes'
import { t } from './lib/i18n/t'

const ID = '0f8fad5b-d9cb-469f-a165-70867728950e'

describe('matchPattern', () => {
  it('matches literal paths and ignores a trailing slash', () => {
    expect(matchPattern('/history', '/history')).toEqual({})
    expect(matchPattern('/history', '/history/')).toEqual({})
    expect(matchPattern('/', '/')).toEqual({})
  })

  it('captures and decodes :name segments', () => {
    expect(matchPattern('/d/:id', `/d/${ID}`)).toEqual({ id: ID })
    expect(matchPattern('/d/:id', '/d/a%20b')).toEqual({ id: 'a b' })
  })

  it('refuses other lengths, other literals and undecodable segments', () => {
    expect(matchPattern('/d/:id', '/d')).toBeNull()
    expect(matchPattern('/d/:id', `/d/${ID}/x`)).toBeNull()
    expect(matchPattern('/d/:id', `/n/${ID}`)).toBeNull()
    expect(matchPattern('/d/:id', '/d/%E0%A4%A')).toBeNull()
  })
})

describe('matchRoute', () => {
  it.each([
    ['/', '/'],
    [`/d/${ID}`, '/d/:id'],
    ['/note', '/note'],
    [`/n/${ID}`, '/n/:id'],
    ['/request', '/request'],
    [`/r/${ID}`, '/r/:id'],
    [`/i/${ID}`, '/i/:id'],
    ['/history', '/history'],
  ])('sends %s to %s', (path, pattern) => {
    const match = matchRoute(path)
    expect(match.route.pattern).toBe(pattern)
  })

  it('falls back to the not-found page', () => {
    expect(matchRoute('/nothing/here').route).toBe(notFoundRoute)
    expect(matchRoute('/d').route).toBe(notFoundRoute)
  })

  it('has one lazily loaded page per path of the app', () => {
    expect(routes.map((r) => r.pattern)).toEqual([
      '/',
      '/d/:id',
      '/note',
      '/n/:id',
      '/request',
      '/r/:id',
      '/i/:id',
      '/history',
      '/about',
      '/settings',
    ])
  })

  it('names every page for the document title', () => {
    expect(routes.map((r) => t(r.title))).toEqual([
      'Send files',
      'Download',
      'Write a note',
      'Note',
      'Request files',
      'Send files',
      'Inbox',
      'My uploads',
      'About',
      'API tokens',
    ])
  })
})

describe('inAppTarget', () => {
  const origin = 'http://app.test'

  function click(html: string, init: MouseEventInit = {}): string | null {
    document.body.innerHTML = html
    const anchor = document.querySelector('a')!
    const event = new MouseEvent('click', { bubbles: true, cancelable: true, button: 0, ...init })
    Object.defineProperty(event, 'target', { value: anchor.firstChild ?? anchor })
    return inAppTarget(event, origin)
  }

  it('keeps same-origin page links in the app, with query and fragment', () => {
    expect(click(`<a href="${origin}/d/${ID}?x=1#key"><span>go</span></a>`)).toBe(
      `/d/${ID}?x=1#key`,
    )
  })

  it('leaves other origins, API and login addresses, downloads and new tabs to the browser', () => {
    expect(click('<a href="https://elsewhere.test/">x</a>')).toBeNull()
    expect(click(`<a href="${origin}/api/config">x</a>`)).toBeNull()
    expect(click(`<a href="${origin}/auth/login">x</a>`)).toBeNull()
    expect(click(`<a href="${origin}/x" download>x</a>`)).toBeNull()
    expect(click(`<a href="${origin}/x" target="_blank">x</a>`)).toBeNull()
    expect(click(`<a href="${origin}/x" rel="external">x</a>`)).toBeNull()
  })

  it('leaves modified and non-primary clicks to the browser', () => {
    expect(click(`<a href="${origin}/x">x</a>`, { ctrlKey: true })).toBeNull()
    expect(click(`<a href="${origin}/x">x</a>`, { metaKey: true })).toBeNull()
    expect(click(`<a href="${origin}/x">x</a>`, { button: 1 })).toBeNull()
  })
})
