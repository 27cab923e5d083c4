/**
 * Plain copies of call arguments: pages keep values in `$state`, whose proxies cannot be cloned
 * into the worker by postMessage.
 */
export function plain<T>(value: T): T {
  return $state.snapshot(value) as T
}
