/**
 * Test support for the fileshare suites and benchmarks; never part of a shipped package. The
 * radosgw, PostgreSQL and OIDC provider fixtures are the subpaths
 * `@fileshare/testing/radosgw`, `@fileshare/testing/postgres` and `@fileshare/testing/oidc-provider`;
 * a Node release of another line is `@fileshare/testing/node-release`.
 */
export { deployBlock, substitute } from './deploy-doc.js'
export { freePort } from './free-port.js'
export {
  TEST_SERVER_ENV,
  startInProcessServer,
  testLogLevel,
  type InProcessServer,
  type InProcessServerOptions,
  type StartableService,
} from './in-process-server.js'
export { Browser, location } from './login-walk.js'
export { holdNetworkQuiet, NETWORK_QUIET_LOCK } from './network-quiet.js'
export { nginxMissing, spawnNginx, type NginxProcess } from './nginx.js'
export { portOpen } from './port-open.js'
export { PEAK_RSS_NODE_ARGS, PEAK_RSS_STDIO, peakRssOf } from './peak-rss.js'
export { rawNodeGcmMBps } from './raw-gcm.js'
export { spawnServer, type SpawnServerOptions, type SpawnedServer } from './spawn-server.js'
export { startStallingWebhook, type StallingWebhook } from './stalling-webhook.js'
export { hasExited, stopChild } from './stop-child.js'
export {
  startWebhookReceiver,
  waitForNotice,
  webhookSignature,
  type WebhookCall,
  type WebhookReceiver,
} from './webhook-receiver.js'
