/**
 * Prints the Node flags this machine wants for the server, for `node $(node …) index.js`.
 * May touch: process state (stdout).
 */
import { wantedNodeFlags } from './node-flags.js'

console.log(wantedNodeFlags().join(' '))
