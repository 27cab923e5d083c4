import { describe, expect, it } from 'vitest'

import { MAIN_LANE, SIDE_LANE, testLanes } from './test-lanes.js'

describe('the lanes of pnpm test', () => {
  it('run side by side from two cores on', () => {
    expect(testLanes(2)).toEqual([MAIN_LANE, SIDE_LANE])
    expect(testLanes(16)).toEqual([MAIN_LANE, SIDE_LANE])
  })

  it('are one lane on one core, the side lane after the main lane', () => {
    expect(testLanes(1)).toEqual([[...MAIN_LANE, ...SIDE_LANE]])
  })

  it('test every package once, the container suite in the side lane, and build nothing', () => {
    const [tests] = MAIN_LANE
    expect(tests?.args).toEqual(expect.arrayContaining(['test', '--only']))
    expect(tests?.args).toContain('--filter=!@fileshare/container-tests')
    expect(SIDE_LANE.map((step) => step.name)).toEqual([
      'typecheck',
      'lint',
      'container test',
      'Node LTS lines',
      'chaos run',
      'formatting',
      'source layout',
      'commit messages',
    ])
  })
})
