/** The file request flow with real cryptography on the filesystem backend. */
import { FILESYSTEM } from './backends.js'
import { requestFlowSuite } from './request-flow.suite.js'

requestFlowSuite(FILESYSTEM)
