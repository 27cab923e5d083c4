/** Setup of the `postgres` vitest project: stops each test file's PostgreSQL cluster after it. */
import { afterAll } from 'vitest'

import { stopTestPostgres } from './dialects.js'

afterAll(stopTestPostgres, 30_000)
