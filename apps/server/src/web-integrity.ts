/**
 * What the server reads, once at start, to vouch for the web app it hosts: the inline script
 * hashes of the built app's integrity manifest (for the Content-Security-Policy it sends), and the
 * operator's WEBCAT enrollment policy. Reads files only; a malformed one stops the start.
 * May touch: the file system (the integrity manifest and the WEBCAT policy file).
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

import { parseIntegrityManifest, scriptHashesOf } from '@fileshare/protocol'

import { isJsonObject } from './validation.js'

/**
 * The `'sha256-…'` sources the hosted app's policy needs for its inline import map; none when no
 * app is hosted or it was built without a manifest (a development build).
 */
export function webAppScriptHashes(webRoot: string | undefined): string[] {
  if (webRoot === undefined) return []
  // The built app's manifest, beside its index.html (apps/web/vite-plugin-integrity.ts).
  const file = join(webRoot, 'integrity.json')
  if (!existsSync(file)) return []
  const manifest = parseIntegrityManifest(JSON.parse(readFileSync(file, 'utf8')) as unknown)
  return scriptHashesOf(manifest.manifest.default_csp)
}

/**
 * The files a WEBCAT client fetches (webcat-spec, server.md): the enrollment policy, the previous
 * one while a change settles, and the signed manifest or bundle; only these names are served.
 */
const WEBCAT_FILES = [
  'enrollment.json',
  'enrollment-prev.json',
  'manifest.json',
  'bundle.json',
  'bundle-prev.json',
] as const

export type WebcatFiles = ReadonlyMap<string, unknown>

const isText = (value: unknown): value is string => typeof value === 'string' && value !== ''

const isPositiveWhole = (value: unknown): value is number =>
  Number.isInteger(value) && (value as number) >= 1

/** What is wrong with an enrollment policy of either kind WEBCAT defines; undefined when none. */
function enrollmentFault(policy: Record<string, unknown>): string | undefined {
  if (!isPositiveWhole(policy.max_age)) return '"max_age" must be a whole number of seconds'
  if (policy.type === 'sigstore') {
    if (!isJsonObject(policy.trusted_root)) return '"trusted_root" must be a Sigstore trusted root'
    if (!isText(policy.identity)) return '"identity" is missing'
    if (!isText(policy.issuer)) return '"issuer" is missing'
    return undefined
  }
  if (policy.type !== undefined && policy.type !== 'sigsum') {
    return '"type" must be "sigsum" or "sigstore"'
  }
  const { signers, threshold } = policy
  if (!Array.isArray(signers) || signers.length === 0 || !signers.every(isText)) {
    return '"signers" must list at least one public key'
  }
  if (!isPositiveWhole(threshold)) return '"threshold" must be a whole number of at least 1'
  if (threshold > signers.length) return '"threshold" exceeds the signers'
  if (!isText(policy.policy)) return '"policy" must be a string'
  if (typeof policy.cas_url !== 'string' || !/^https:\/\/\S+$/.test(policy.cas_url)) {
    return '"cas_url" must be an https:// address'
  }
  return undefined
}

/**
 * Reads WEBCAT_DIR: every file of WEBCAT_FILES it holds, each a JSON object, the enrollment
 * policy required and checked. The error names the setting, the file and the fault.
 */
export function readWebcatFiles(dir: string): WebcatFiles {
  const files = new Map<string, unknown>()
  for (const name of WEBCAT_FILES) {
    const file = join(dir, name)
    const fail = (reason: string) => new Error(`WEBCAT_DIR: ${file} ${reason}`)
    if (!existsSync(file)) {
      if (name === 'enrollment.json') throw fail('is missing: the enrollment policy is required')
      continue
    }
    let value: unknown
    try {
      value = JSON.parse(readFileSync(file, 'utf8'))
    } catch (error) {
      throw fail(`is not JSON: ${error instanceof Error ? error.message : String(error)}`)
    }
    if (!isJsonObject(value)) throw fail('is not a JSON object')
    if (name.startsWith('enrollment')) {
      const fault = enrollmentFault(value)
      if (fault !== undefined) throw fail(`is not an enrollment policy: ${fault}`)
    }
    files.set(name, value)
  }
  return files
}
