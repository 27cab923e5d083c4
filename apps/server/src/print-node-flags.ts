/** Prints the Node flags this machine wants for the server, for `node $(node …) index.js`. */
import { wantedNodeFlags } from './node-flags.js'

console.log(wantedNodeFlags().join(' '))
