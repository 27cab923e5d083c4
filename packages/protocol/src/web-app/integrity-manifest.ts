/**
 * The web app's integrity manifest (`integrity.json`), in the shape of a WEBCAT manifest: the
 * app's version, the Content-Security-Policy the server sends, and the SHA-256 of every file the
 * app can load. The build writes it; the server reads its policy; `fileshare verify-web` checks a
 * served app against it. Signatures are added outside the build, by whoever vouches for it.
 */
import { ProtocolError } from '../errors.js'

/** One file's SHA-256, lowercase hex. */
export type Sha256Hex = string

export interface WebAppManifest {
  /** Where the app's source is published; empty when the build was not told. */
  app_url: string
  app_version: string
  /** The policy the server sends with every file of the app. */
  default_csp: string
  /** Every file the app can load, by its absolute path on the server ('/' is index.html). */
  files: Record<string, Sha256Hex>
  /** The SHA-256 of each WebAssembly module the app compiles. */
  wasm: Sha256Hex[]
}

export interface WebIntegrityManifest {
  manifest: WebAppManifest
  /** Filled in by the signers (WEBCAT: Ed25519 keys to Sigsum proofs); empty as built. */
  signatures: Record<string, unknown>
}

/** Where the server serves the manifest of the app it hosts. */
export const INTEGRITY_MANIFEST_PATH = '/integrity.json'

const SHA256_HEX = /^[0-9a-f]{64}$/

function bad(reason: string): ProtocolError {
  return new ProtocolError('BAD_INPUT', `Not an integrity manifest: ${reason}`)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Checks a decoded manifest's shape and returns it typed; throws BAD_INPUT naming the fault. */
export function parseIntegrityManifest(value: unknown): WebIntegrityManifest {
  if (!isRecord(value) || !isRecord(value.manifest)) throw bad('no "manifest" object')
  const m = value.manifest
  for (const key of ['app_url', 'app_version', 'default_csp'] as const) {
    if (typeof m[key] !== 'string') throw bad(`"${key}" is not a string`)
  }
  if ((m.default_csp as string).includes(',')) throw bad('"default_csp" holds several policies')
  if (!isRecord(m.files) || Object.keys(m.files).length === 0) throw bad('no "files"')
  for (const [path, hash] of Object.entries(m.files)) {
    if (!path.startsWith('/') || path.includes('..') || path.includes('\\')) {
      throw bad(`the path ${JSON.stringify(path)} is not an absolute path of the app`)
    }
    if (typeof hash !== 'string' || !SHA256_HEX.test(hash)) throw bad(`the hash of ${path}`)
  }
  const wasm = m.wasm ?? []
  if (!Array.isArray(wasm) || !wasm.every((h) => typeof h === 'string' && SHA256_HEX.test(h))) {
    throw bad('"wasm" is not a list of SHA-256 hashes')
  }
  const signatures = value.signatures ?? {}
  if (!isRecord(signatures)) throw bad('"signatures" is not an object')
  return {
    manifest: {
      app_url: m.app_url as string,
      app_version: m.app_version as string,
      default_csp: m.default_csp as string,
      files: m.files as Record<string, string>,
      wasm: wasm as string[],
    },
    signatures,
  }
}
