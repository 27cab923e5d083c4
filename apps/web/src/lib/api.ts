/** The page's own client for the light calls (config, session); heavy work goes to the worker. */
import { ApiClient } from '@fileshare/protocol'

/** The service's base address: the web app is served at the root of the server. */
export function baseUrl(): string {
  return location.origin
}

let client: ApiClient | undefined

export function pageApi(): ApiClient {
  client ??= new ApiClient({ baseUrl: baseUrl(), credentials: 'same-origin' })
  return client
}
