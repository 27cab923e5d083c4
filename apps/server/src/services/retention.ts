/**
 * How long the record of an expired or used-up upload or note outlives its content. The cleanup
 * job removes the content (the blob, the note's ciphertext) as soon as the item can no longer be
 * read, and keeps the record, so that its id answers 410 as the spec's states say rather than
 * 404; the record goes this long after the item's expiry, and only then does the id answer 404.
 */
export const TOMBSTONE_RETENTION_MS = 30 * 24 * 3_600_000
