/**
 * A `blob:` URL for a preview's decrypted bytes, revoked when the component that asked for it
 * goes away, so a closed preview leaves nothing reachable. Call it during component setup.
 */
export function objectUrlOf(blob: () => Blob): { readonly url: string } {
  const url = $derived(URL.createObjectURL(blob()))
  $effect(() => {
    const current = url
    return () => URL.revokeObjectURL(current)
  })
  return {
    get url() {
      return url
    },
  }
}
