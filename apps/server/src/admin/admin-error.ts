/**
 * A refusal of fileshare-admin (unknown id, bad option): one line on stderr and an exit code.
 * May touch: nothing (pure).
 */
export const ADMIN_EXIT = { usage: 1, notFound: 2, failure: 3 } as const

export class AdminError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = ADMIN_EXIT.usage,
  ) {
    super(message)
    this.name = 'AdminError'
  }
}
