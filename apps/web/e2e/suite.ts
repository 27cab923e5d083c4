/**
 * The per-file setup shared by the end-to-end suites: one server for the file, a connection to
 * the run's Chromium (or a Chromium of its own for a file that asks for flags), a fresh browser
 * context per test, closed after it. Under CI=true nothing is skipped: a missing Chromium or a
 * missing build fails in beforeAll.
 *
 * Every context is watched for what the app promises never to do: a request to a host other than
 * our server (fonts, CDNs), a Content-Security-Policy violation, an uncaught error in a page. Any
 * of them fails the test that caused it.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

import { freePort } from '@fileshare/testing'
import type { BrowserContext, Page, Request } from 'playwright-core'
import { afterAll, afterEach, beforeAll, inject } from 'vitest'

import {
  connectBrowser,
  launchBrowser,
  newContext,
  type ContextOptions,
  type TestBrowser,
} from './browser.js'
import { startProxy, type RecordingProxy } from './proxy.js'
import { startE2eServer, type E2eServer, type E2eServerOptions } from './server.js'

export interface Suite {
  /** The base URL pages use: the server's, or the proxy's in front of it. */
  readonly url: string
  readonly server: E2eServer
  /** The recording proxy, when the suite asked for one. */
  readonly proxy: RecordingProxy
  readonly browser: TestBrowser
  /** A fresh context (its own storage and downloads), closed after the test. */
  context(options?: ContextOptions): Promise<BrowserContext>
  /** A page in a fresh context, opened at `path` of the server. */
  open(path: string, options?: ContextOptions): Promise<Page>
}

export interface SuiteOptions extends E2eServerOptions {
  /** Origins besides the server's that pages may reach (the OIDC provider's login pages). */
  allowedOrigins?: string[]
  /** Puts a recording proxy in front of the server; pages then use its address. */
  proxy?: boolean
  /**
   * Chromium flags besides the usual ones: the file then launches a Chromium of its own instead
   * of sharing the run's, since flags belong to the browser process.
   */
  browserArgs?: string[]
}

export function useSuite(options: SuiteOptions | (() => Promise<SuiteOptions>) = {}): Suite {
  let server: E2eServer | undefined
  let browser: TestBrowser | undefined
  let proxy: RecordingProxy | undefined
  let allowed: string[] = []
  let own = ''
  const contexts: BrowserContext[] = []
  const violations: string[] = []
  const traces = new WeakMap<BrowserContext, ContextTrace>()

  const watch = (context: BrowserContext) => {
    traces.set(context, traceContext(context))
    context.on('request', (request) => {
      const url = new URL(request.url())
      // The browser's own parts (its PDF viewer) are no other host.
      if (['data:', 'blob:', 'chrome-extension:'].includes(url.protocol)) return
      if (allowed.includes(url.origin)) return
      // Only our pages are held to it; the OIDC provider's login page may load what it likes.
      let from = own
      try {
        from = new URL(request.frame().url()).origin
      } catch {
        // A worker's request has no frame; workers are ours.
      }
      if (from === own) violations.push(`request to another host: ${url.href}`)
    })
    context.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) {
        violations.push(`CSP violation: ${message.text()}`)
      }
    })
    context.on('weberror', (error) => violations.push(`uncaught error: ${error.error().message}`))
  }

  beforeAll(async () => {
    const resolved = typeof options === 'function' ? await options() : options
    const proxyPort = resolved.proxy ? await freePort() : undefined
    const serverOptions =
      proxyPort === undefined
        ? resolved
        : // Links and the WebSocket's Origin check use BASE_URL, which is now the proxy's.
          { ...resolved, env: { ...resolved.env, BASE_URL: `http://127.0.0.1:${proxyPort}` } }
    ;[server, browser] = await Promise.all([
      startE2eServer(serverOptions),
      openBrowser(resolved.browserArgs),
    ])
    if (proxyPort !== undefined) proxy = await startProxy(server.url, proxyPort)
    own = new URL(suite.url).origin
    allowed = [own, ...(resolved.allowedOrigins ?? [])]
  })
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') {
      await describeFailure(task.name, contexts, (context) => traces.get(context))
    }
    await Promise.all(contexts.splice(0).map((context) => context.close()))
    const found = violations.splice(0)
    if (found.length > 0) throw new Error(found.join('\n'))
  })
  afterAll(async () => {
    await proxy?.close()
    await browser?.close()
    await server?.close()
  })

  const suite: Suite = {
    get url() {
      return proxy?.url ?? required(server, 'server').url
    },
    get proxy() {
      return required(proxy, 'proxy')
    },
    get server() {
      return required(server, 'server')
    },
    get browser() {
      return required(browser, 'browser')
    },
    async context(contextOptions = {}) {
      const context = await newContext(required(browser, 'browser').browser, contextOptions)
      watch(context)
      contexts.push(context)
      return context
    },
    async open(path, contextOptions = {}) {
      const context = await suite.context(contextOptions)
      const page = await context.newPage()
      await page.goto(new URL(path, suite.url).href)
      return page
    },
  }
  return suite
}

/**
 * The run's Chromium when the file needs no flags of its own and the run started one (the e2e
 * configuration's global setup; the benchmark and a lone file run under another configuration
 * launch their own), else a Chromium launched for the file.
 */
export function openBrowser(extraArgs: string[] = []): Promise<TestBrowser> {
  const endpoint = inject('chromiumEndpoint')
  return extraArgs.length === 0 && endpoint ? connectBrowser(endpoint) : launchBrowser(extraArgs)
}

/** What a context's pages and workers asked for and said, kept for a failure's description. */
interface ContextTrace {
  /** Requests without an answer yet, with when they started. */
  unanswered: Map<Request, number>
  /** The last console lines and failed requests, oldest first. */
  events: string[]
}

const TRACE_EVENTS = 30

function traceContext(context: BrowserContext): ContextTrace {
  const trace: ContextTrace = { unanswered: new Map(), events: [] }
  const note = (line: string) => {
    trace.events.push(`${new Date().toISOString().slice(11, 23)} ${line}`)
    if (trace.events.length > TRACE_EVENTS) trace.events.shift()
  }
  context.on('request', (request) => trace.unanswered.set(request, Date.now()))
  context.on('requestfinished', (request) => trace.unanswered.delete(request))
  context.on('requestfailed', (request) => {
    trace.unanswered.delete(request)
    note(`request failed: ${request.method()} ${request.url()} ${request.failure()?.errorText}`)
  })
  context.on('console', (message) => note(`console ${message.type()}: ${message.text()}`))
  return trace
}

/**
 * What every page showed when a test failed: its address and accessibility tree, the requests
 * still unanswered and the context's last console lines, on stderr and in a text file under
 * .test-results/failures/ (which the run's summary prints, since CI keeps only a log's tail), and
 * a screenshot under artifacts/failures/.
 */
async function describeFailure(
  test: string,
  contexts: BrowserContext[],
  traceOf: (context: BrowserContext) => ContextTrace | undefined,
): Promise<void> {
  const dir = fileURLToPath(new URL('./artifacts/failures/', import.meta.url))
  const texts = fileURLToPath(new URL('../../../.test-results/failures/', import.meta.url))
  await Promise.all([mkdir(dir, { recursive: true }), mkdir(texts, { recursive: true })])
  const name = test.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)
  const lines: string[] = []
  for (const [index, context] of contexts.entries()) {
    const trace = traceOf(context)
    const now = Date.now()
    for (const [request, at] of trace?.unanswered ?? []) {
      lines.push(
        `context ${index} unanswered for ${now - at} ms: ${request.method()} ${request.url()}`,
      )
    }
    for (const event of trace?.events ?? []) lines.push(`context ${index} ${event}`)
  }
  for (const [index, page] of contexts.flatMap((context) => context.pages()).entries()) {
    try {
      const tree = await page.locator('body').ariaSnapshot({ timeout: 2000 })
      lines.push(`page ${index} at ${page.url()}:`, tree)
      await page.screenshot({ path: `${dir}${name}-${index}.png`, fullPage: true, timeout: 5000 })
    } catch {
      // A page that closed or hangs has nothing more to tell.
    }
  }
  const text = lines.join('\n')
  console.error(`[${test}]\n${text}`)
  await writeFile(`${texts}${name}.txt`, `${test}\n${text}\n`)
}

function required<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`the ${name} did not start`)
  return value
}
