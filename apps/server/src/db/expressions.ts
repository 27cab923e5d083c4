/**
 * Arithmetic on a column inside an UPDATE, in SQL that every dialect drizzle speaks reads the
 * same way (SQLite's two-argument `max()` is not one of them).
 * May touch: nothing (pure).
 */
import { sql, type AnyColumn, type SQL } from 'drizzle-orm'

/** `column + amount`. */
export function increment(column: AnyColumn, amount = 1): SQL {
  return sql`${column} + ${amount}`
}

/** `column - amount`, never below 0. */
export function decrementToZero(column: AnyColumn, amount = 1): SQL {
  return sql`case when ${column} > ${amount} then ${column} - ${amount} else 0 end`
}

/** `column - amount`; pair it with a condition that keeps the result in range. */
export function decrement(column: AnyColumn, amount = 1): SQL {
  return sql`${column} - ${amount}`
}
