/**
 * `fileshare get` through a front server that passes every request on to the real server but
 * redirects the counted download, or the password check, to another origin: the command fails
 * and that origin never sees a request, so no `X-Auth-Token` leaves for it.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { CliUser } from './cli-runner.js'
import { startFakeServer, type FakeServer } from './fake-server.js'
import { startTestServer, type TestServer } from './server.js'

let server: TestServer
let elsewhere: FakeServer
let front: FakeServer
let user: CliUser
let work: string
/** Paths the front server redirects to `elsewhere` instead of passing them on. */
let redirected: RegExp

beforeAll(async () => {
  server = await startTestServer()
  elsewhere = await startFakeServer((_request, response) => void response.writeHead(404).end())
  front = await startFakeServer(async (request, response, body) => {
    const path = request.url ?? ''
    if (redirected.test(path)) {
      response.writeHead(307, { Location: `${elsewhere.url}${path}` }).end()
      return
    }
    const headers = Object.entries(request.headers).filter(
      ([name]) => !['host', 'connection', 'content-length'].includes(name),
    ) as Array<[string, string]>
    const answer = await fetch(`${server.url}${path}`, {
      method: request.method ?? 'GET',
      headers,
      ...(body.length > 0 ? { body: new Uint8Array(body) } : {}),
    })
    const bytes = Buffer.from(await answer.arrayBuffer())
    const out: Record<string, string> = {}
    answer.headers.forEach((value, name) => {
      if (name !== 'content-encoding' && name !== 'transfer-encoding') out[name] = value
    })
    response.writeHead(answer.status, { ...out, 'content-length': String(bytes.length) })
    response.end(bytes)
  })
  user = await CliUser.create(server.url)
  work = await mkdtemp(join(tmpdir(), 'fileshare-redirects-'))
})

afterAll(async () => {
  await front?.close()
  await elsewhere?.close()
  await server?.close()
  if (user) await rm(user.home, { recursive: true, force: true })
  if (work) await rm(work, { recursive: true, force: true })
})

/** A fresh upload's link, pointed at the front server. */
async function frontLink(password?: string): Promise<string> {
  const file = join(work, 'report.txt')
  await writeFile(file, 'quarterly numbers\n')
  const sent = password
    ? await user.json<{ link: string }>(['send', file, '--password'], {
        env: { FILESHARE_PASSWORD: password },
      })
    : await user.json<{ link: string }>(['send', file])
  return sent.link.replace(server.url, front.url)
}

describe('redirects', () => {
  it('security: a download redirected to another origin fails and sends it no token', async () => {
    redirected = /^\/api\/download\//
    const link = await frontLink()
    const out = join(work, 'download')
    const result = await user.run(['get', link, '-o', out])
    expect(result.stderr).toContain(
      `The server redirected to ${elsewhere.url}; not following it with credentials`,
    )
    expect(result.code).toBe(3)
    expect(elsewhere.seen).toEqual([])
    expect(await readdir(out).catch(() => [])).toEqual([])
  })

  it('security: a password check redirected to another origin fails and sends it no token', async () => {
    redirected = /^\/api\/password\//
    const link = await frontLink('correct horse')
    const result = await user.run(['get', link, '--password', '-o', join(work, 'locked')], {
      env: { FILESHARE_PASSWORD: 'correct horse' },
    })
    expect(result.stderr).toContain(`The server redirected to ${elsewhere.url}`)
    expect(result.code).toBe(3)
    expect(elsewhere.seen).toEqual([])
  })

  it('still downloads when nothing is redirected away', async () => {
    redirected = /^$/
    const link = await frontLink()
    const out = join(work, 'plain')
    await user.ok(['get', link, '-o', out])
    expect(await readdir(out)).toEqual(['report.txt'])
  })
})
