import { describe, expect, it } from 'vitest'

import { toBase64Url } from '../encoding.js'
import { RequestDeclaration } from './request-declaration.js'

const bytes = (n: number, fill = 7) => toBase64Url(new Uint8Array(n).fill(fill))

const LIMITS = { maxSize: 1000, maxFilesPerUpload: 10 }

const DECLARED: RequestDeclaration = {
  uploadToken: bytes(32, 1),
  salt: bytes(32, 2),
  size: 900,
  fileCount: 3,
  senderNote: false,
}

function received(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, v]) => [name.toLowerCase(), v]))
}

function refusalOf(result: ReturnType<typeof RequestDeclaration.fromFrame>) {
  if (result.ok) throw new Error('expected a refusal')
  return result.refusal
}

const frame = RequestDeclaration.toFrame(DECLARED) as unknown as Record<string, unknown>

describe('RequestDeclaration', () => {
  it.each([
    ['without a note', DECLARED],
    ['as a sender note', { ...DECLARED, senderNote: true }],
  ])('decodes its own headers and frame %s to the same declaration', (_name, declaration) => {
    const headers = received(RequestDeclaration.toHeaders(declaration))
    expect(RequestDeclaration.fromHeaders(headers, LIMITS)).toEqual({
      ok: true,
      value: declaration,
    })
    expect(RequestDeclaration.fromFrame(RequestDeclaration.toFrame(declaration), LIMITS)).toEqual({
      ok: true,
      value: declaration,
    })
  })

  it('spells the frame with integers and the headers with the names the spec gives', () => {
    expect(RequestDeclaration.toFrame(DECLARED)).toEqual({
      uploadToken: DECLARED.uploadToken,
      salt: DECLARED.salt,
      contentLength: 900,
      fileCount: 3,
    })
    expect(RequestDeclaration.toHeaders({ ...DECLARED, senderNote: true })).toEqual({
      'X-Upload-Token': DECLARED.uploadToken,
      'X-Salt': DECLARED.salt,
      'X-Content-Length': '900',
      'X-File-Count': '3',
      'X-Sender-Note': 'true',
    })
  })

  it('takes the frame numbers as decimal strings too, and one file by default', () => {
    const strings = { ...frame, contentLength: '900', fileCount: undefined }
    expect(RequestDeclaration.fromFrame(strings, LIMITS)).toEqual({
      ok: true,
      value: { ...DECLARED, fileCount: 1 },
    })
  })

  it('turns a missing or malformed upload token into null, for a 404 like a wrong one', () => {
    for (const uploadToken of [undefined, `${bytes(32, 1)}=`, bytes(16), 42]) {
      expect(RequestDeclaration.fromFrame({ ...frame, uploadToken }, LIMITS)).toMatchObject({
        ok: true,
        value: { uploadToken: null },
      })
    }
  })

  it.each([
    ['salt', bytes(16), 'x-salt', 'Invalid encoding: expected 32 bytes in x-salt'],
    ['salt', `${bytes(32)}=`, 'x-salt', 'Invalid encoding: expected 32 bytes in x-salt'],
    [
      'contentLength',
      1.5,
      'x-content-length',
      'Invalid input: x-content-length must be a non-negative integer written in plain digits',
    ],
    [
      'contentLength',
      '0900',
      'x-content-length',
      'Invalid input: x-content-length must be a non-negative integer written in plain digits',
    ],
    ['contentLength', undefined, 'x-content-length', 'Invalid input: x-content-length is missing'],
    ['fileCount', 0, 'x-file-count', 'Invalid input: x-file-count must be at least 1'],
    ['senderNote', 'yes', 'x-sender-note', 'x-sender-note must be true or false'],
    ['senderNote', 1, 'x-sender-note', 'x-sender-note must be true or false'],
  ])('refuses %s %j with 400 naming %s', (field, value, header, reason) => {
    expect(refusalOf(RequestDeclaration.fromFrame({ ...frame, [field]: value }, LIMITS))).toEqual({
      status: 400,
      message: 'Invalid request',
      details: { [header]: reason },
    })
  })

  it('refuses too many files and too large a size with their own answers', () => {
    expect(refusalOf(RequestDeclaration.fromFrame({ ...frame, fileCount: 11 }, LIMITS))).toEqual({
      status: 400,
      message: 'Too many files',
      details: { 'x-file-count': 'must be at most 10' },
    })
    expect(
      refusalOf(RequestDeclaration.fromFrame({ ...frame, contentLength: 1001 }, LIMITS)),
    ).toEqual({ status: 413, message: 'File size exceeds maximum allowed size' })
  })

  it.each([null, [], 'x'])('refuses a request of %j', (request) => {
    expect(refusalOf(RequestDeclaration.fromFrame(request, LIMITS))).toEqual({
      status: 400,
      message: 'Invalid request',
      details: { request: 'must be an object' },
    })
  })
})
