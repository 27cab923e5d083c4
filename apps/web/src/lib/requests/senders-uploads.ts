/**
 * Uploads counted as a sender sees them. When a request accepts notes, each sender's upload has
 * two slots on the server (files and a note, spec: requests), so the creation doubles the limit;
 * people count one upload per sender, with or without a note.
 */

/** Uploads a sender may still make; an odd slot left still takes files alone. */
export function sendersUploadsLeft(slotsLeft: number, acceptsNote: boolean): number {
  return acceptsNote ? Math.ceil(slotsLeft / 2) : slotsLeft
}

/** Senders' uploads used and offered, from the server's slot counts. */
export function sendersUploads(
  slots: { used: number; max: number },
  acceptsNote: boolean,
): { used: number; max: number } {
  if (!acceptsNote) return slots
  const max = Math.floor(slots.max / 2)
  return { used: Math.min(max, Math.ceil(slots.used / 2)), max }
}
