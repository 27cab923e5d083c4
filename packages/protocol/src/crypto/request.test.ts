import { describe, expect, it } from 'vitest'
import { fromBase64Url } from '../encoding.js'
import { generateSecret } from './keys.js'
import {
  createRequest,
  deriveInboxAccess,
  deriveUploadToken,
  openBrief,
  openVault,
  unwrapUploadSecret,
  wrapUploadSecret,
} from './request.js'
import type { Sealed } from './sealed.js'

const REQUEST_ID = '6f1c2b1e-8d3a-4c55-9a4e-2f0d8b7c6a51'
const OTHER_REQUEST_ID = '0b8e8f0a-3c1d-4e2f-8a9b-1c2d3e4f5a6b'
const UPLOAD_ID = 'c3d2e1f0-a9b8-4c7d-8e6f-5a4b3c2d1e0f'

function sealedOf(fields: { ciphertext: string; nonce: string }): Sealed {
  return { ciphertext: fromBase64Url(fields.ciphertext), nonce: fromBase64Url(fields.nonce) }
}

describe('request creation', () => {
  it('produces every field at its exact size, canonically encoded', async () => {
    const { fields } = await createRequest({ message: 'Send me the contracts', acceptsNote: true })
    expect(fromBase64Url(fields.vault, { canonical: true, bytes: 146 })).toHaveLength(146)
    expect(fromBase64Url(fields.vaultNonce, { canonical: true, bytes: 12 })).toHaveLength(12)
    for (const token of [fields.uploadToken, fields.inboxAuthToken, fields.inboxOwnerToken]) {
      expect(fromBase64Url(token, { canonical: true, bytes: 32 })).toHaveLength(32)
    }
    expect(fromBase64Url(fields.brief.nonce, { canonical: true, bytes: 12 })).toHaveLength(12)
    expect(fromBase64Url(fields.brief.ciphertext)).toHaveLength(1040)
  })

  it('pads the brief to whole KiB from 1 to 8 KiB and refuses longer messages', async () => {
    const long = await createRequest({ message: 'x'.repeat(3000), acceptsNote: false })
    expect(fromBase64Url(long.fields.brief.ciphertext)).toHaveLength(4096 + 16)
    const max = await createRequest({ message: 'x'.repeat(8000), acceptsNote: false })
    expect(fromBase64Url(max.fields.brief.ciphertext)).toHaveLength(8192 + 16)
    await expect(
      createRequest({ message: 'x'.repeat(8200), acceptsNote: false }),
    ).rejects.toMatchObject({
      code: 'BAD_INPUT',
    })
  })

  it('derives the tokens the server is given from the link secrets', async () => {
    const created = await createRequest({ message: 'hi', acceptsNote: false })
    expect(await deriveUploadToken(created.uploadSecret)).toBe(created.fields.uploadToken)
    const inbox = await deriveInboxAccess(created.inboxSecret)
    expect(inbox.inboxToken).toBe(created.fields.inboxAuthToken)
    expect(inbox.inboxOwnerToken).toBe(created.fields.inboxOwnerToken)
    expect(inbox.inboxToken).not.toBe(inbox.inboxOwnerToken)
  })
})

describe('sender and requester', () => {
  it('a sender reads the brief, wraps an upload secret; the requester unwraps it', async () => {
    const created = await createRequest({ message: 'Ihre Unterlagen, bitte ✉', acceptsNote: true })
    const brief = sealedOf(created.fields.brief)

    const sender = await openBrief(created.uploadSecret, brief)
    expect(sender.brief).toEqual({ message: 'Ihre Unterlagen, bitte ✉', acceptsNote: true })
    const uploadSecret = generateSecret()
    const wrap = await wrapUploadSecret(sender.publicKey, REQUEST_ID, UPLOAD_ID, uploadSecret)
    expect(wrap.wrapEnc).toHaveLength(65)
    expect(wrap.wrapCiphertext).toHaveLength(48)

    const vault = await openVault(
      created.inboxSecret,
      sealedOf({ ciphertext: created.fields.vault, nonce: created.fields.vaultNonce }),
      brief,
    )
    expect(vault.publicKey).toEqual(sender.publicKey)
    expect(vault.uploadSecret).toEqual(created.uploadSecret)
    expect(await unwrapUploadSecret(vault.keyPair, REQUEST_ID, UPLOAD_ID, wrap)).toEqual(
      uploadSecret,
    )
  })

  it('a wrap opens only for its own request, upload and key', async () => {
    const created = await createRequest({ message: 'a', acceptsNote: false })
    const other = await createRequest({ message: 'b', acceptsNote: false })
    const brief = sealedOf(created.fields.brief)
    const { publicKey } = await openBrief(created.uploadSecret, brief)
    const wrap = await wrapUploadSecret(publicKey, REQUEST_ID, UPLOAD_ID, generateSecret())
    const vault = await openVault(
      created.inboxSecret,
      sealedOf({ ciphertext: created.fields.vault, nonce: created.fields.vaultNonce }),
      brief,
    )
    const otherVault = await openVault(
      other.inboxSecret,
      sealedOf({ ciphertext: other.fields.vault, nonce: other.fields.vaultNonce }),
      sealedOf(other.fields.brief),
    )

    await expect(
      unwrapUploadSecret(otherVault.keyPair, REQUEST_ID, UPLOAD_ID, wrap),
    ).rejects.toMatchObject({ code: 'DECRYPT_FAILED' })
    await expect(
      unwrapUploadSecret(vault.keyPair, OTHER_REQUEST_ID, UPLOAD_ID, wrap),
    ).rejects.toMatchObject({ code: 'DECRYPT_FAILED' })
    await expect(
      unwrapUploadSecret(vault.keyPair, REQUEST_ID, OTHER_REQUEST_ID, wrap),
    ).rejects.toMatchObject({ code: 'DECRYPT_FAILED' })
    const flipped = { ...wrap, wrapCiphertext: wrap.wrapCiphertext.slice() }
    flipped.wrapCiphertext[0]! ^= 1
    await expect(
      unwrapUploadSecret(vault.keyPair, REQUEST_ID, UPLOAD_ID, flipped),
    ).rejects.toMatchObject({ code: 'DECRYPT_FAILED' })
  })

  it('a brief served under another request is detected by sender and requester', async () => {
    const mine = await createRequest({ message: 'mine', acceptsNote: false })
    const theirs = await createRequest({ message: 'theirs', acceptsNote: false })
    const swapped = sealedOf(theirs.fields.brief)
    await expect(openBrief(mine.uploadSecret, swapped)).rejects.toMatchObject({
      code: 'DECRYPT_FAILED',
    })
    await expect(
      openVault(
        mine.inboxSecret,
        sealedOf({ ciphertext: mine.fields.vault, nonce: mine.fields.vaultNonce }),
        swapped,
      ),
    ).rejects.toMatchObject({ code: 'DECRYPT_FAILED' })
  })

  it('the vault does not open with another inbox secret', async () => {
    const created = await createRequest({ message: 'a', acceptsNote: false })
    await expect(
      openVault(
        generateSecret(),
        sealedOf({ ciphertext: created.fields.vault, nonce: created.fields.vaultNonce }),
        sealedOf(created.fields.brief),
      ),
    ).rejects.toMatchObject({ code: 'DECRYPT_FAILED' })
  })
})
