/**
 * The configuration blocks of docs/deploy.md, taken as written so that tests run what users copy:
 * a block is found by its info string (`<language> file=<path>`, optionally `variant=<name>`), and
 * its placeholders are replaced by local addresses.
 */
import { readFile } from 'node:fs/promises'

const DEPLOY_DOC = new URL('../../../docs/deploy.md', import.meta.url)

/** The one fenced block of docs/deploy.md in `language` with `file=` and the given variant. */
export async function deployBlock(language: string, variant?: string): Promise<string> {
  const doc = await readFile(DEPLOY_DOC, 'utf8')
  const blocks = [...doc.matchAll(/^```(\S+) file=\S+(?: variant=(\S+))?\n([\s\S]*?)^```$/gm)]
  const matching = blocks.filter(([, lang, kind]) => lang === language && kind === variant)
  const name = variant === undefined ? language : `${language} ${variant}`
  if (matching.length !== 1) {
    throw new Error(`docs/deploy.md has ${matching.length} ${name} blocks with file=, not one`)
  }
  return matching[0]![3]!
}

/** `text` with each placeholder replaced; one that no longer occurs fails, so edits show. */
export function substitute(text: string, pairs: ReadonlyArray<[string, string]>): string {
  let result = text
  for (const [from, to] of pairs) {
    if (!result.includes(from)) throw new Error(`the configuration no longer contains ${from}`)
    result = result.replaceAll(from, to)
  }
  return result
}
