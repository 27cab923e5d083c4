import { describe, expect, it } from 'vitest'

import { ConfigError, loadConfig } from './config.js'

describe('loadConfig', () => {
  it('listens on every interface at port 3000 by default', () => {
    expect(loadConfig({})).toEqual({ port: 3000, host: '0.0.0.0' })
  })

  it('reads PORT and HOST', () => {
    expect(loadConfig({ PORT: '8080', HOST: '127.0.0.1' })).toEqual({
      port: 8080,
      host: '127.0.0.1',
    })
  })

  it.each(['abc', '-1', '65536', '80.5', ' 80'])('refuses PORT=%j naming the variable', (port) => {
    expect(() => loadConfig({ PORT: port })).toThrow(ConfigError)
    expect(() => loadConfig({ PORT: port })).toThrow(
      `PORT must be an integer from 0 to 65535, got ${JSON.stringify(port)}`,
    )
  })

  it('refuses a HOST with spaces', () => {
    expect(() => loadConfig({ HOST: 'local host' })).toThrow(
      'HOST must be a host name or an IPv4 or IPv6 address, got "local host"',
    )
  })
})
