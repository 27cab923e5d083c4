/** The fixed inputs of the known-answer vectors. */
import type { FileMetadata } from '../../src/crypto/metadata.js'
import type { RequestBrief } from '../../src/crypto/request.js'

const counting = (length: number, start: number) =>
  new Uint8Array(length).map((_, i) => (start + i) & 255)

export const VECTOR_INPUTS = {
  secret: counting(32, 0),
  salt32: counting(32, 100),
  salt16: counting(16, 200),
  passwordSalt: counting(16, 50),
  password: 'correct horse battery staple',
  streamPlainSize: 2 * 1024 * 1024 + 1000,
  streamSeed: 2026,
  metadata: {
    archive: true,
    files: [
      { name: 'photos/été.jpg', type: 'image/jpeg', size: 123456 },
      { name: 'notes.txt', type: 'text/plain', size: 0 },
    ],
  } satisfies FileMetadata,
  noteText: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA example',
  noteType: 'sshkey',
  brief: { message: 'Please send the signed contract', acceptsNote: true } satisfies RequestBrief,
  requestId: '6f1c2b1e-8d3a-4c55-9a4e-2f0d8b7c6a51',
  uploadId: 'c3d2e1f0-a9b8-4c7d-8e6f-5a4b3c2d1e0f',
}
