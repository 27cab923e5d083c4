/**
 * Runs SQLite's WAL checkpoints on a worker thread with its own connection. A checkpoint waits on
 * fsync; run automatically, it would do so on the event loop, inside whichever request happened to
 * commit, and stall every request behind it. The main connection turns automatic checkpoints off.
 * May touch: the SQLite file (a connection on a worker thread it starts); timers.
 */
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

import type { SqliteConnection } from './sqlite-connection.js'

/** How often the worker folds the WAL back into the database. */
const CHECKPOINT_INTERVAL_MS = 250

// Plain JavaScript evaluated in the worker, so it runs the same from src/ (tests) and dist/. It
// opens the file with the driver of the main connection; both have exec() and close().
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const db = workerData.module === null
  ? new (require('node:sqlite').DatabaseSync)(workerData.file)
  : new (require(workerData.module))(workerData.file, { fileMustExist: true })
db.exec('PRAGMA busy_timeout = 5000')
const timer = setInterval(() => {
  try {
    db.exec('PRAGMA wal_checkpoint(PASSIVE)')
  } catch (error) {
    parentPort.postMessage({ error: String(error) })
  }
}, workerData.intervalMs)
parentPort.on('message', () => {
  clearInterval(timer)
  try {
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
  } finally {
    db.close()
    parentPort.close()
  }
})
`

export type Checkpointer = ReturnType<typeof startCheckpointer>

/** Takes over the checkpoints of `sqlite` (a connection to a WAL-mode database file). */
export function startCheckpointer(sqlite: SqliteConnection, onError: (message: string) => void) {
  const module =
    sqlite.driver === 'node:sqlite'
      ? null
      : createRequire(import.meta.url).resolve('better-sqlite3')
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file: sqlite.file, module, intervalMs: CHECKPOINT_INTERVAL_MS },
  })
  sqlite.exec('PRAGMA wal_autocheckpoint = 0')
  worker.unref()
  worker.on('message', (message: { error?: string }) => {
    if (message.error) onError(`WAL checkpoint failed: ${message.error}`)
  })
  worker.on('error', (error) => onError(`WAL checkpointer stopped: ${error.message}`))
  let stopped: Promise<void> | undefined
  return {
    /** Runs a last full checkpoint and stops the worker. */
    stop(): Promise<void> {
      stopped ??= new Promise((resolve) => {
        worker.once('exit', () => resolve())
        worker.postMessage('stop')
      })
      return stopped
    },
  }
}
