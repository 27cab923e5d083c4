import { describe, expect, it } from 'vitest'
import { CLI_CALLBACK_PREFIXES, PKCE_COOKIE_NAME, SESSION_COOKIE_NAME } from './auth.js'
import { PASSWORD_ALGO } from './common.js'
import { NOTE_CONTENT_TYPES } from './notes.js'
import {
  CREATE_FILE_REQUEST_FIELDS,
  FILE_REQUEST_BRIEF_FIELDS,
  REQUEST_UPLOAD_FINALIZE_FIELDS,
} from './requests.js'
import { CHUNK_INDEX_PARAM, DOWNLOAD_CACHE_CONTROL, DOWNLOAD_CONTENT_TYPE } from './uploads.js'

describe('names the spec fixes', () => {
  it('note content types', () => {
    expect(NOTE_CONTENT_TYPES).toEqual(['text', 'markdown', 'password', 'code', 'sshkey'])
  })

  it('password algorithm and cookies', () => {
    expect(PASSWORD_ALGO).toBe('argon2id-v2')
    expect(SESSION_COOKIE_NAME).toBe('fileshare-auth')
    expect(PKCE_COOKIE_NAME).toBe('fileshare-pkce')
    expect(CLI_CALLBACK_PREFIXES).toEqual(['http://localhost', 'http://127.0.0.1'])
  })

  it('download headers and the chunk query', () => {
    expect(DOWNLOAD_CONTENT_TYPE).toBe('application/octet-stream')
    expect(DOWNLOAD_CACHE_CONTROL).toBe('no-store')
    expect(CHUNK_INDEX_PARAM).toBe('index')
  })

  it('the fields of POST /api/request, the only ones it accepts (notify and senderNotes are ours)', () => {
    expect([...CREATE_FILE_REQUEST_FIELDS].sort()).toEqual(
      [
        'vault',
        'vaultNonce',
        'inboxAuthToken',
        'inboxOwnerToken',
        'uploadToken',
        'brief',
        'expireSec',
        'maxUploads',
        'maxSize',
        'downloads',
        'hasPassword',
        'notifyEmail',
        'notifyWebhook',
        'senderNotes',
      ].sort(),
    )
    expect([...FILE_REQUEST_BRIEF_FIELDS].sort()).toEqual(['ciphertext', 'nonce'])
    expect(Object.isFrozen(CREATE_FILE_REQUEST_FIELDS)).toBe(true)
  })

  it('the fields of a request upload finalize, the only ones it accepts', () => {
    expect([...REQUEST_UPLOAD_FINALIZE_FIELDS].sort()).toEqual(
      ['wrapEnc', 'wrapCiphertext', 'encryptedMeta', 'metaNonce'].sort(),
    )
    expect(Object.isFrozen(REQUEST_UPLOAD_FINALIZE_FIELDS)).toBe(true)
  })
})
