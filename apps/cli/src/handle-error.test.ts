/** Every kind of failure maps to one line and its documented exit code. */
import { ApiError, ProtocolError } from '@fileshare/protocol'
import { CommanderError } from 'commander'
import { describe, expect, it } from 'vitest'

import { describeError, handleError } from './handle-error.js'
import { CliError, NotFileshareServerError, UnsafeArchiveError, UsageError } from './lib/errors.js'

describe('describeError', () => {
  it('shows a server refusal verbatim with exit code 2', () => {
    expect(describeError(new ApiError(410, 'Upload expired or download limit reached'))).toEqual({
      message: 'Upload expired or download limit reached',
      exitCode: 2,
      status: 410,
    })
  })

  it('tells to run fileshare login on a 401 login refusal', () => {
    const report = describeError(new ApiError(401, 'Login required'))
    expect(report.exitCode).toBe(2)
    expect(report.message).toBe('Login required: run `fileshare login` to sign in to this server')
  })

  it('adds the wait of a lockout to the message', () => {
    const report = describeError(
      new ApiError(429, 'Too many failed attempts, try again later', { retryAfterSec: 900 }),
    )
    expect(report).toMatchObject({ exitCode: 2, status: 429, retryAfterSec: 900 })
    expect(report.message).toBe('Too many failed attempts, try again later (retry in 15 min)')
  })

  it('maps network and integrity failures to exit code 3', () => {
    for (const code of ['NETWORK', 'DECRYPT_FAILED', 'TRUNCATED'] as const) {
      expect(describeError(new ProtocolError(code, 'failed')).exitCode).toBe(3)
    }
    expect(describeError(new UnsafeArchiveError('entry "../x"')).exitCode).toBe(3)
  })

  it('names a server that is not fileshare and exits 3', () => {
    expect(describeError(new NotFileshareServerError('http://localhost:8080', '404'))).toEqual({
      message:
        'http://localhost:8080 does not look like a fileshare server (GET /api/config answered 404)',
      exitCode: 3,
    })
  })

  it('maps a wrong password to 2 and a bad link or usage to 1', () => {
    expect(describeError(new ProtocolError('WRONG_PASSWORD', 'Wrong password')).exitCode).toBe(2)
    expect(describeError(new ProtocolError('BAD_LINK', 'Invalid link')).exitCode).toBe(1)
    expect(describeError(new UsageError('bad')).exitCode).toBe(1)
    expect(
      describeError(Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' })).exitCode,
    ).toBe(1)
  })

  it('keeps the exit code of commander and of a cancel', () => {
    expect(describeError(new CommanderError(1, 'commander.unknownOption', 'x'))).toMatchObject({
      exitCode: 1,
      printed: true,
    })
    expect(describeError(new CommanderError(0, 'commander.helpDisplayed', '')).exitCode).toBe(0)
    expect(describeError(new CliError('Cancelled', 130)).exitCode).toBe(130)
  })
})

describe('handleError', () => {
  it('prints one line on stderr, and with --json one object on stdout', () => {
    let out = ''
    let err = ''
    const streams = {
      stdout: { write: (t: string) => ((out += t), true) },
      stderr: { write: (t: string) => ((err += t), true) },
    } as unknown as { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream }
    const code = handleError(new ApiError(404, 'Upload not found'), true, streams, {})
    expect(code).toBe(2)
    expect(err).toBe('fileshare: Upload not found\n')
    expect(JSON.parse(out)).toEqual({ error: 'Upload not found', exitCode: 2, status: 404 })
  })
})

describe('handleError on stderr', () => {
  it("security: a server's message cannot send escape sequences to the terminal", () => {
    let stderr = ''
    let stdout = ''
    const streams = {
      stderr: { write: (text: string) => Boolean((stderr += text)) },
      stdout: { write: (text: string) => Boolean((stdout += text)) },
    } as unknown as Parameters<typeof handleError>[2]
    const error = new ApiError(400, 'Bad\u001b]0;owned\u0007 request')
    expect(handleError(error, true, streams, {})).toBe(2)
    expect(stderr).toBe('fileshare: Bad\\x1b]0;owned\\x07 request\n')
    expect(JSON.parse(stdout).error).toBe('Bad\u001b]0;owned\u0007 request')
  })
})
