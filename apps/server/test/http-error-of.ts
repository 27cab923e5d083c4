/** Test helper: runs a call that must fail with an HttpError and returns that error. */
import { HttpError } from '../src/http-error.js'

export function httpErrorOf(run: () => unknown): HttpError {
  try {
    run()
  } catch (err) {
    if (err instanceof HttpError) return err
    throw err
  }
  throw new Error('expected the call to throw')
}

/** Test helper: awaits a call that must reject with an HttpError and returns that error. */
export async function httpErrorOfAsync(run: () => Promise<unknown>): Promise<HttpError> {
  try {
    await run()
  } catch (err) {
    if (err instanceof HttpError) return err
    throw err
  }
  throw new Error('expected the call to reject')
}
