import { describe, expect, it } from 'vitest'

import { chooseCount, chooseDuration, chooseSize } from './options.js'

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

describe('chooseDuration and chooseCount', () => {
  const hours = [3600, 86_400]

  it('take an allowed value, and the default when none is given', () => {
    expect(chooseDuration('--expire', '1d', hours, 3600)).toBe(86_400)
    expect(chooseDuration('--expire', undefined, hours, 3600)).toBe(3600)
    expect(chooseCount('--views', ' 5 ', [1, 5], 1)).toBe(5)
    expect(chooseCount('--views', undefined, [1, 5], 1)).toBe(1)
  })

  it('refuse a value the server does not allow, listing the allowed ones', () => {
    expect(() => chooseDuration('--expire', '2h', hours, 3600)).toThrow(
      '--expire 2h is not allowed by this server; choose one of 1h, 1d',
    )
    expect(() => chooseDuration('--expire', 'soon', hours, 3600)).toThrow(
      '--expire soon is not a duration; this server allows 1h, 1d',
    )
    expect(() => chooseCount('--views', '3', [1, 5], 1)).toThrow(
      '--views 3 is not allowed by this server; choose one of 1, 5',
    )
    expect(() => chooseCount('--views', 'many', [1, 5], 1)).toThrow(
      '--views many is not allowed by this server; choose one of 1, 5',
    )
  })
})
