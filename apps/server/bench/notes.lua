-- wrk script of the note load in server-bench.ts: every connection creates a note, then views a
-- note its thread created, again and again. wrk does not say which connection an answer came
-- from, so a thread queues the ids of the notes it created and its next request views the oldest
-- of them; each note is still viewed once, after its creation. All notes of a run share one
-- random auth token: the server hashes and compares a token the same way whatever its value.
-- The benchmark passes its settings in the environment: NOTE_MAX_VIEWS, NOTE_EXPIRE_SEC and
-- NOTE_AUTH_TOKEN. The last line printed is one JSON object of the counts and latencies.

local ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

-- `length` random base64url characters; standard base64 when `standard` is true.
local function random_text(length, standard)
  local out = {}
  for i = 1, length do
    local n = math.random(1, 64)
    local char = ALPHABET:sub(n, n)
    if standard and char == '-' then char = '+' elseif standard and char == '_' then char = '/' end
    out[i] = char
  end
  return table.concat(out)
end

local threads = {}

function setup(thread)
  thread:set('id', #threads + 1)
  table.insert(threads, thread)
end

local auth_token = os.getenv('NOTE_AUTH_TOKEN')
local max_views = os.getenv('NOTE_MAX_VIEWS')
local expire_sec = os.getenv('NOTE_EXPIRE_SEC')
local json_headers = { ['Content-Type'] = 'application/json' }
local view_body = '{"authToken":"' .. auth_token .. '"}'

local pending = {}
local first, last = 1, 0
created, viewed, failed, first_error = 0, 0, 0, ''

function init()
  math.randomseed(os.time() * 1000 + id)
end

local function create_request()
  -- 200 bytes of ciphertext are 268 base64 characters; 12 bytes of nonce 16; 16 of salt 22.
  local body = '{"encryptedContent":"' .. random_text(264, true) .. 'AAA="' ..
    ',"nonce":"' .. random_text(16, true) .. '"' ..
    ',"salt":"' .. random_text(21) .. 'A"' ..
    ',"ownerToken":"' .. random_text(42) .. 'A"' ..
    ',"authToken":"' .. auth_token .. '"' ..
    ',"contentType":"text","maxViews":' .. max_views ..
    ',"expireSec":' .. expire_sec .. ',"hasPassword":false}'
  return wrk.format('POST', '/api/note', json_headers, body)
end

function request()
  if first <= last then
    local note = pending[first]
    pending[first] = nil
    first = first + 1
    return wrk.format('POST', '/api/note/' .. note .. '/view', json_headers, view_body)
  end
  return create_request()
end

function response(status, headers, body)
  if status == 201 then
    local note = body:match('"id":"([0-9a-f%-]+)"')
    if note then
      created = created + 1
      last = last + 1
      pending[last] = note
      return
    end
  elseif status == 200 then
    viewed = viewed + 1
    return
  end
  failed = failed + 1
  if first_error == '' then first_error = status .. ': ' .. body:sub(1, 200) end
end

function done(summary, latency, requests)
  local totals = { created = 0, viewed = 0, failed = 0 }
  local first_failure = ''
  for _, thread in ipairs(threads) do
    totals.created = totals.created + thread:get('created')
    totals.viewed = totals.viewed + thread:get('viewed')
    totals.failed = totals.failed + thread:get('failed')
    if first_failure == '' then first_failure = thread:get('first_error') end
  end
  local errors = summary.errors
  io.write(string.format(
    '{"durationUs":%d,"requests":%d,"created":%d,"viewed":%d,"failed":%d,' ..
      '"socketErrors":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d,"firstError":"%s"}\n',
    summary.duration, summary.requests, totals.created, totals.viewed, totals.failed,
    errors.connect + errors.read + errors.write + errors.timeout,
    latency:percentile(50), latency:percentile(99), latency.max,
    first_failure:gsub('[%c"\\]', ' ')))
end
