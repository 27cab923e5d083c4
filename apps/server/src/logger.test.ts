import { describe, expect, it } from 'vitest'

import type { LogLevel } from './config.js'
import { createLogger } from './logger.js'

const NOW = new Date('2024-03-10T12:00:00.000Z')

function capture(level: LogLevel) {
  const out: string[] = []
  const err: string[] = []
  const logger = createLogger(
    level,
    { stdout: { write: (line) => out.push(line) }, stderr: { write: (line) => err.push(line) } },
    () => NOW,
  )
  return { logger, out, err }
}

describe('createLogger', () => {
  it('writes errors and warnings to stderr and the rest to stdout, one line each', () => {
    const { logger, out, err } = capture('debug')
    logger.error('e')
    logger.warn('w')
    logger.info('i')
    logger.debug('d')
    expect(err).toEqual(['2024-03-10T12:00:00.000Z ERROR e\n', '2024-03-10T12:00:00.000Z WARN w\n'])
    expect(out).toEqual(['2024-03-10T12:00:00.000Z INFO i\n', '2024-03-10T12:00:00.000Z DEBUG d\n'])
  })

  it.each<[LogLevel, number]>([
    ['silent', 0],
    ['error', 1],
    ['warn', 2],
    ['info', 3],
    ['debug', 4],
  ])('at level %s writes the %i most severe kinds', (level, count) => {
    const { logger, out, err } = capture(level)
    logger.error('e')
    logger.warn('w')
    logger.info('i')
    logger.debug('d')
    expect(err.length + out.length).toBe(count)
  })

  it('keeps an entry on one line, stack traces and injected line breaks included', () => {
    const { logger, err } = capture('error')
    logger.error('forged\nINFO line', new Error('boom'))
    expect(err).toHaveLength(1)
    const line = err[0] ?? ''
    expect(line.endsWith('\n')).toBe(true)
    expect(line.slice(0, -1)).not.toMatch(/[\n\r]/)
    expect(line).toContain('forged\\nINFO line Error: boom\\n    at ')
  })

  it('writes other details as JSON', () => {
    const { logger, out } = capture('info')
    logger.info('started', { port: 3000 })
    expect(out).toEqual(['2024-03-10T12:00:00.000Z INFO started {"port":3000}\n'])
  })
})
