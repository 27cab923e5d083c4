/**
 * The record tags of each unfinished upload (docs/crypto.md, "Resuming"): one file per upload in
 * `unfinished/` of the config folder (0700, files 0600), 16 bytes per record from record 0. Each
 * write is synced before the records it covers leave, so that after any stop the file holds the
 * tag of every record that may have been sent; `send --resume` proves the sources with them.
 */
import { constants } from 'node:fs'
import { chmod, open, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'

import { isUuid, RECORD_TAG_SIZE } from '@fileshare/protocol'

import { ensureConfigDir, FILE_MODE } from './config-dir.js'

const FOLDER = 'unfinished'

/** The tags file of upload `id` under the config folder `dir`; ids are the server's UUIDs only. */
function tagsPath(dir: string, id: string): string {
  if (!isUuid(id)) throw new Error(`${id} is not an upload id`)
  return join(dir, FOLDER, `${id}.tags`)
}

/** Writes the tags of records `index`, `index + 1`, … at their place, and syncs them. */
export async function writeSealTags(
  dir: string,
  id: string,
  index: number,
  tags: Uint8Array,
): Promise<void> {
  const path = tagsPath(dir, id)
  await ensureConfigDir(join(dir, FOLDER))
  const handle = await open(path, constants.O_WRONLY | constants.O_CREAT, FILE_MODE)
  try {
    // The mode given to open() is narrowed by the umask only, never widened; chmod makes it exact.
    if (index === 0) await chmod(path, FILE_MODE)
    await handle.write(tags, 0, tags.length, index * RECORD_TAG_SIZE)
    await handle.datasync()
  } finally {
    await handle.close()
  }
}

/** The tags kept for upload `id`; undefined when none were (nothing proves its sources). */
export async function readSealTags(dir: string, id: string): Promise<Uint8Array | undefined> {
  try {
    const bytes = await readFile(tagsPath(dir, id))
    // A write cut short leaves a partial tag at the end; its record never left.
    const whole = bytes.length - (bytes.length % RECORD_TAG_SIZE)
    return new Uint8Array(bytes.buffer, bytes.byteOffset, whole)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

export async function dropSealTags(dir: string, id: string): Promise<void> {
  if (isUuid(id)) await rm(tagsPath(dir, id), { force: true })
}
