/** Resuming streamed upload sessions on the filesystem backend (resume.suite.ts). */
import { FILESYSTEM } from './backends.js'
import { resumeSuite } from './resume.suite.js'

resumeSuite(FILESYSTEM)
