/**
 * Deleting what a result page just made (an upload, a note) with its owner token: the button asks
 * first, then deletes, and once the server has deleted it the item leaves this browser's history
 * too, as a deletion from My uploads does. A failed deletion goes back to the button with the
 * server's message, and the item stays.
 */
import { errorMessage } from '../errors'
import { forgetHistoryItem } from './history.svelte'

export type DeletionStep = 'idle' | 'confirming' | 'deleting' | 'deleted'

export class Deletion {
  step = $state<DeletionStep>('idle')
  /** Why the last attempt failed, as the server or the network said it. */
  failure = $state<string | null>(null)

  constructor(
    private readonly remove: () => Promise<void>,
    /** The item's history key. */
    private readonly historyKey: string,
  ) {}

  ask(): void {
    if (this.step === 'idle') this.step = 'confirming'
  }

  cancel(): void {
    if (this.step === 'confirming') this.step = 'idle'
  }

  async confirm(): Promise<void> {
    if (this.step !== 'confirming') return
    this.step = 'deleting'
    this.failure = null
    try {
      await this.remove()
    } catch (error) {
      this.step = 'idle'
      this.failure = errorMessage(error)
      return
    }
    this.step = 'deleted'
    await forgetHistoryItem(this.historyKey)
  }
}
