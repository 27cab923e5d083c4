/**
 * A bare Chrome DevTools Protocol client for the benchmark. playwright asks Chromium for every
 * request body and WebSocket frame it watches (Network domain events carry them), which slows
 * uploads from a page several times over; the benchmark drives Chromium through this client
 * instead, enabling only the domains it needs, so the figures are the browser's own.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import WebSocket from 'ws'

import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/browser.js'

type Params = Record<string, unknown>
type Listener = (params: Params, sessionId: string | undefined) => void

export class Cdp {
  private nextId = 1
  private readonly pending = new Map<
    number,
    { resolve: (value: Params) => void; reject: (error: Error) => void }
  >()
  private readonly listeners = new Map<string, Set<Listener>>()

  constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as {
        id?: number
        method?: string
        params?: Params
        result?: Params
        error?: { message: string }
        sessionId?: string
      }
      if (message.id !== undefined) {
        const waiting = this.pending.get(message.id)
        this.pending.delete(message.id)
        if (message.error) waiting?.reject(new Error(message.error.message))
        else waiting?.resolve(message.result ?? {})
      } else if (message.method) {
        for (const listener of this.listeners.get(message.method) ?? []) {
          listener(message.params ?? {}, message.sessionId)
        }
      }
    })
  }

  send<T = Params>(method: string, params: Params = {}, sessionId?: string): Promise<T> {
    const id = this.nextId++
    this.socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }))
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: Params) => void, reject })
    })
  }

  on(method: string, listener: Listener): () => void {
    const set = this.listeners.get(method) ?? new Set<Listener>()
    set.add(listener)
    this.listeners.set(method, set)
    return () => set.delete(listener)
  }

  /** The next event `method` for which `match` holds. */
  waitFor(method: string, match: (params: Params) => boolean = () => true): Promise<Params> {
    return new Promise((resolve) => {
      const off = this.on(method, (params) => {
        if (!match(params)) return
        off()
        resolve(params)
      })
    })
  }
}

export interface RawBrowser {
  cdp: Cdp
  /** A new tab at `url`; answers its flattened session id. */
  openPage(url: string): Promise<string>
  close(): Promise<void>
}

export async function launchRawBrowser(): Promise<RawBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'fileshare-bench-profile-'))
  const child: ChildProcess = spawn(
    CHROMIUM_PATH,
    [...CHROMIUM_ARGS, '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  )
  const endpoint = await new Promise<string>((resolve, reject) => {
    let output = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      output += String(chunk)
      const found = /DevTools listening on (ws:\/\/\S+)/.exec(output)?.[1]
      if (found) resolve(found)
    })
    child.once('exit', (code) => reject(new Error(`Chromium exited (${code}): ${output}`)))
  })
  const socket = new WebSocket(endpoint, { perMessageDeflate: false, maxPayload: 256 * 1024 ** 2 })
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve())
    socket.once('error', reject)
  })
  const cdp = new Cdp(socket)
  return {
    cdp,
    async openPage(url) {
      const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', {
        url: 'about:blank',
      })
      const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', {
        targetId,
        flatten: true,
      })
      await cdp.send('Page.enable', {}, sessionId)
      await cdp.send('Runtime.enable', {}, sessionId)
      const loaded = cdp.waitFor('Page.loadEventFired')
      await cdp.send('Page.navigate', { url }, sessionId)
      await loaded
      return sessionId
    },
    async close() {
      socket.close()
      child.kill()
      await new Promise((resolve) => child.once('exit', resolve))
      await rm(profile, { recursive: true, force: true })
    },
  }
}

/** Evaluates `expression` in the page (awaiting a promise) and answers its JSON value. */
export async function evaluate<T>(cdp: Cdp, sessionId: string, expression: string): Promise<T> {
  const answer = await cdp.send<{
    result: { value?: T }
    exceptionDetails?: { exception?: { description?: string }; text: string }
  }>('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, sessionId)
  if (answer.exceptionDetails) {
    throw new Error(answer.exceptionDetails.exception?.description ?? answer.exceptionDetails.text)
  }
  return answer.result.value as T
}

/** Polls `expression` until it is truthy; answers that value. */
export async function waitUntil<T>(
  cdp: Cdp,
  sessionId: string,
  expression: string,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await evaluate<T>(cdp, sessionId, expression)
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${expression}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/**
 * The element with ARIA `role` and accessible `name`, or any of `name`s (as the accessibility
 * tree computes them); answers a remote object id for calling functions on it.
 */
export async function findByRole(
  cdp: Cdp,
  sessionId: string,
  role: string,
  name: string | string[],
  timeoutMs: number,
): Promise<string> {
  const deadline = Date.now() + timeoutMs
  const names = typeof name === 'string' ? [name] : name
  for (let turn = 0; ; turn++) {
    const { root } = await cdp.send<{ root: { backendNodeId: number } }>(
      'DOM.getDocument',
      { depth: 0 },
      sessionId,
    )
    const accessibleName = names[turn % names.length]
    const { nodes } = await cdp.send<{ nodes: Array<{ backendDOMNodeId?: number }> }>(
      'Accessibility.queryAXTree',
      { backendNodeId: root.backendNodeId, role, accessibleName },
      sessionId,
    )
    const backendNodeId = nodes.find(
      (node) => node.backendDOMNodeId !== undefined,
    )?.backendDOMNodeId
    if (backendNodeId !== undefined) {
      const { object } = await cdp.send<{ object: { objectId: string } }>(
        'DOM.resolveNode',
        { backendNodeId },
        sessionId,
      )
      return object.objectId
    }
    if (Date.now() > deadline) throw new Error(`no ${role} named "${names.join('" or "')}"`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Calls `fn` with `this` bound to the remote object, as a user gesture; answers its value. */
export async function callOn<T>(
  cdp: Cdp,
  sessionId: string,
  objectId: string,
  fn: string,
): Promise<T> {
  const answer = await cdp.send<{ result: { value?: T } }>(
    'Runtime.callFunctionOn',
    {
      objectId,
      functionDeclaration: fn,
      returnByValue: true,
      awaitPromise: true,
      userGesture: true,
    },
    sessionId,
  )
  return answer.result.value as T
}

/**
 * Waits until the page shows a form field labelled `label` (a `<label>` with a control), watching
 * the DOM with a MutationObserver inside the page. Polling `findByRole` instead would have
 * Chromium rebuild its accessibility tree every few milliseconds, on the main thread, while the
 * transfer being timed runs.
 */
export async function waitForField(
  cdp: Cdp,
  sessionId: string,
  label: string,
  timeoutMs: number,
): Promise<void> {
  await evaluate(
    cdp,
    sessionId,
    `new Promise((resolve, reject) => {
      const label = ${JSON.stringify(label)}
      const found = () =>
        [...document.querySelectorAll('label')].some((l) => l.control && l.textContent.trim() === label)
      if (found()) return resolve(true)
      const observer = new MutationObserver(() => {
        if (!found()) return
        observer.disconnect()
        clearTimeout(timer)
        resolve(true)
      })
      observer.observe(document.body, { childList: true, subtree: true })
      const timer = setTimeout(() => {
        observer.disconnect()
        reject(new Error('no field labelled ' + label))
      }, ${timeoutMs})
    })`,
  )
}
