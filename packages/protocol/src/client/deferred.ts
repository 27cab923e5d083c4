/** A promise settled from outside, for the client core and the apps that drive it. */
export interface Deferred<T> {
  promise: Promise<T>
  resolve(value: T): void
  reject(error: unknown): void
}

/**
 * A new deferred promise. Its rejection is observed later (or never, once another failure won),
 * so it is not reported as unhandled; whoever awaits it still sees it.
 */
export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  promise.catch(() => undefined)
  return { promise, resolve, reject }
}
