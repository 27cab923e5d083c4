-- wrk script of the loads in limits-bench.ts and token-bench.ts: GET BENCH_PATH (/api/config by
-- default) from LIMITS_CLIENTS clients, named by X-Forwarded-For (the limits bench runs the server
-- with TRUST_PROXY=1), each request from the next client in turn, with BENCH_AUTHORIZATION as the
-- Authorization header when it is set. The last line printed is one JSON object of the counts and
-- latencies.

local clients = tonumber(os.getenv('LIMITS_CLIENTS') or '1000')
local path = os.getenv('BENCH_PATH') or '/api/config'
local authorization = os.getenv('BENCH_AUTHORIZATION')
local counter = 0

request = function()
  counter = counter + 1
  local n = counter % clients
  local ip = string.format('10.%d.%d.%d', math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256)
  local headers = { ['X-Forwarded-For'] = ip }
  if authorization then headers['Authorization'] = authorization end
  return wrk.format('GET', path, headers)
end

done = function(summary, latency, requests)
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"non2xx":%d,"errors":%d,"p50Us":%d,"p99Us":%d}\n',
    summary.requests, summary.duration, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(50), latency:percentile(99)))
end
