/** Svelte compiler settings shared by Vite, svelte-check and ESLint. */
export default {
  compilerOptions: {
    // Every component uses runes ($state, $props, $derived); legacy reactivity is refused.
    runes: true,
  },
}
