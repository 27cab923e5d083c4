/**
 * The Hono environment of the app: the Node request bindings and nothing ad hoc.
 * May touch: nothing (pure).
 */
import type { HttpBindings } from '@hono/node-server'

export type AppEnv = { Bindings: HttpBindings }
