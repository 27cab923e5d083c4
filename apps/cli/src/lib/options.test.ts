import { describe, expect, it } from 'vitest'

import { chooseSize } from './options.js'

describe('chooseSize', () => {
  it('reads KB, MB and GB as powers of 1024, as the server and the web app do', () => {
    expect(chooseSize('--max-size', '10MB', 2 * 1024 ** 3)).toBe(10 * 1024 ** 2)
    expect(chooseSize('--max-size', '10MiB', 2 * 1024 ** 3)).toBe(10 * 1024 ** 2)
    expect(chooseSize('--max-size', '500M', 2 * 1024 ** 3)).toBe(500 * 1024 ** 2)
    expect(chooseSize('--max-size', undefined, 1234)).toBe(1234)
  })

  it('refuses junk, zero and sizes over the limit with the limit in binary units', () => {
    expect(() => chooseSize('--max-size', '10 parsecs', 1024)).toThrow(
      /^--max-size "10 parsecs" is not a size: use bytes or a number with KB/,
    )
    expect(() => chooseSize('--max-size', '0', 1024)).toThrow(/at least 1 byte/)
    expect(() => chooseSize('--max-size', '3GB', 2 * 1024 ** 3)).toThrow(
      "--max-size 3GB is over this server's limit of 2 GiB",
    )
  })
})
