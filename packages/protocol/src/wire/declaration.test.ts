import { describe, expect, it } from 'vitest'

import {
  DECLARATION_HEADERS,
  declarationHeaders,
  receivedDeclarationHeaders,
  type UploadDeclaration,
} from './declaration.js'

const PLAIN: UploadDeclaration = {
  authToken: 'YXV0aA',
  ownerToken: 'b3duZXI',
  salt: 'c2FsdA',
  maxDownloads: '5',
  expireSec: '86400',
  fileCount: '2',
  contentLength: '1234',
  hasPassword: 'false',
}

const PROTECTED: UploadDeclaration = {
  ...PLAIN,
  hasPassword: 'true',
  passwordSalt: 'cGFzc3dvcmQ',
  passwordAlgo: 'argon2id-v2',
}

describe('declarationHeaders', () => {
  it('spells every field as the header the spec names', () => {
    expect(declarationHeaders(PROTECTED)).toEqual({
      'X-Auth-Token': 'YXV0aA',
      'X-Owner-Token': 'b3duZXI',
      'X-Salt': 'c2FsdA',
      'X-Max-Downloads': '5',
      'X-Expire-Sec': '86400',
      'X-File-Count': '2',
      'X-Content-Length': '1234',
      'X-Has-Password': 'true',
      'X-Password-Salt': 'cGFzc3dvcmQ',
      'X-Password-Algo': 'argon2id-v2',
    })
  })

  it('sends the password headers only with a password', () => {
    const stray = { ...PLAIN, passwordSalt: 'x', passwordAlgo: 'y' } as UploadDeclaration
    expect(Object.keys(declarationHeaders(stray))).not.toContain('X-Password-Salt')
    expect(Object.keys(declarationHeaders(stray))).not.toContain('X-Password-Algo')
  })
})

describe('receivedDeclarationHeaders', () => {
  it('reads a frame into the lower-case names a server receives the headers under', () => {
    const received = receivedDeclarationHeaders(PROTECTED)
    const sent = declarationHeaders(PROTECTED)
    expect(received).toEqual(
      Object.fromEntries(Object.entries(sent).map(([name, value]) => [name.toLowerCase(), value])),
    )
  })

  it('counts a value that is not a string as missing, and ignores unknown fields', () => {
    const received = receivedDeclarationHeaders({ ...PLAIN, maxDownloads: 5, extra: 'x' })
    expect(received).not.toHaveProperty('x-max-downloads')
    expect(Object.keys(received)).toHaveLength(Object.keys(PLAIN).length - 1)
  })

  it('reads nothing from headers that are not an object', () => {
    for (const headers of [undefined, null, 'x', 42]) {
      expect(receivedDeclarationHeaders(headers)).toEqual({})
    }
  })

  it('knows every field of the frame', () => {
    expect(Object.keys(DECLARATION_HEADERS).sort()).toEqual([...Object.keys(PROTECTED)].sort())
  })
})
