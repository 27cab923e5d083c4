/** Which server a creating command talks to, and the config folder it reads. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { configDir } from './config-dir.js'
import { DEFAULT_SERVER, normalizeServer, resolveServer } from './server.js'

let home: string

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'fileshare-server-'))
})

afterEach(async () => {
  await rm(home, { recursive: true, force: true })
})

async function writeConfig(value: unknown): Promise<void> {
  await mkdir(join(home, '.config', 'fileshare'), { recursive: true })
  await writeFile(join(home, '.config', 'fileshare', 'config.json'), JSON.stringify(value))
}

describe('configDir', () => {
  it('uses XDG_CONFIG_HOME, else ~/.config, and ignores a relative XDG path', () => {
    expect(configDir({ XDG_CONFIG_HOME: '/x/cfg', HOME: '/home/u' })).toBe('/x/cfg/fileshare')
    expect(configDir({ HOME: '/home/u' })).toBe('/home/u/.config/fileshare')
    expect(configDir({ XDG_CONFIG_HOME: 'rel', HOME: '/home/u' })).toBe('/home/u/.config/fileshare')
  })
})

describe('resolveServer', () => {
  it('prefers --server, then FILESHARE_SERVER, then config.json, then the default', async () => {
    const env = { HOME: home }
    expect(await resolveServer(undefined, env)).toEqual({
      baseUrl: DEFAULT_SERVER,
      source: 'default',
    })
    await writeConfig({ server: 'https://from-config.example/' })
    expect(await resolveServer(undefined, env)).toEqual({
      baseUrl: 'https://from-config.example',
      source: 'config file',
    })
    const withEnv = { ...env, FILESHARE_SERVER: 'https://from-env.example' }
    expect((await resolveServer(undefined, withEnv)).baseUrl).toBe('https://from-env.example')
    expect((await resolveServer('http://option.example:8080/share/', withEnv)).baseUrl).toBe(
      'http://option.example:8080/share',
    )
  })

  it('refuses a config file that is not an object with a string server', async () => {
    await writeConfig(['https://x.example'])
    await expect(resolveServer(undefined, { HOME: home })).rejects.toThrow(/JSON object/)
    await writeConfig({ server: 42 })
    await expect(resolveServer(undefined, { HOME: home })).rejects.toThrow(/must be a string/)
  })
})

describe('normalizeServer', () => {
  it('keeps origin and path prefix and refuses what is not a plain http(s) address', () => {
    expect(normalizeServer('https://share.example.org/')).toBe('https://share.example.org')
    expect(() => normalizeServer('ftp://x.example')).toThrow(/http/)
    expect(() => normalizeServer('not a url')).toThrow(/not a URL/)
    expect(() => normalizeServer('https://user:pw@x.example')).toThrow(/credentials/)
    expect(() => normalizeServer('https://x.example/#frag')).toThrow(/#/)
  })
})
