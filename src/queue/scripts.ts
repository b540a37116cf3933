// The queue's state changes, each one Lua script run atomically by Redis: a job is never in two
// places, and two processes racing (two hosts claiming, a reaper and a finishing host) leave one
// outcome. Light's entries are kept byte for byte where Light reads them back (the pending entry a
// lease puts back, `original_job` of a failed entry); zkgate's own state is in `zkgate:` keys.

/**
 * Ends a job as failed (shared by `fail` and `reap`): Light's failed entry, the job's state, its
 * de-duplication key dropped so the same inputs may be tried again.
 */
const FAIL_JOB = `
local function failJob(id, info, err, kind, failedAt, ttl, jobPrefix, dedupPrefix, failedList, attempts, stats, endedCh, failedMax)
  local entry = '{"id":' .. cjson.encode(id .. '_failed') .. ',"type":"failed","payload":{"error":' .. cjson.encode(err) ..
    ',"failed_at":' .. cjson.encode(failedAt) .. ',"original_job":' .. info.entry .. '},"created_at":' .. cjson.encode(failedAt) .. '}'
  redis.call('RPUSH', failedList, entry)
  redis.call('LTRIM', failedList, -failedMax, -1)
  local jobKey = jobPrefix .. id
  local dedup = redis.call('HGET', jobKey, 'dedup')
  if dedup then redis.call('DEL', dedupPrefix .. dedup) end
  redis.call('HSET', jobKey, 'status', 'failed', 'error', err, 'error_kind', kind, 'failed_at', failedAt)
  redis.call('EXPIRE', jobKey, ttl)
  redis.call('HDEL', attempts, id)
  redis.call('HINCRBY', stats, 'failed', 1)
  redis.call('PUBLISH', endedCh, id)
end
local function releaseLease(id, info, leases, leased)
  redis.call('LREM', info.proc, 1, info.procEntry)
  redis.call('ZREM', leases, id)
  redis.call('HDEL', leased, id)
end
`;

/**
 * KEYS: list, jobKey, dedupKey (or any key when none); ARGV: id, entry, createdAt, circuit,
 * maxDepth, stateTtl, addedCh, jobPrefix, dedupHash ('' for none), circuitType.
 * Returns {id, 0} queued, {existingId, 1} the same inputs already queued or done, {'', 2} full.
 */
export const SUBMIT = `
if ARGV[9] ~= '' then
  local existing = redis.call('GET', KEYS[3])
  if existing then
    local st = redis.call('HGET', ARGV[8] .. existing, 'status')
    if st and st ~= 'failed' then return {existing, 1} end
  end
end
if redis.call('LLEN', KEYS[1]) >= tonumber(ARGV[5]) then return {'', 2} end
redis.call('RPUSH', KEYS[1], ARGV[2])
redis.call('HSET', KEYS[2], 'status', 'queued', 'created_at', ARGV[3], 'circuit', ARGV[4], 'circuit_type', ARGV[10], 'queue', KEYS[1])
if ARGV[9] ~= '' then
  redis.call('HSET', KEYS[2], 'dedup', ARGV[9])
  redis.call('SET', KEYS[3], ARGV[1], 'EX', ARGV[6])
end
redis.call('EXPIRE', KEYS[2], ARGV[6])
redis.call('PUBLISH', ARGV[7], '1')
return {ARGV[1], 0}
`;

/**
 * KEYS: leases, leased, attempts, then pairs of pending list and its processing list, in the
 * order to look; ARGV: now ms, lease ms, host, accepted circuit types (",a,b,"), entries to look
 * at per list, start time (RFC 3339), jobPrefix, stateTtl.
 * Takes the first entry of an accepted circuit type: its processing entry (Light's) added, its
 * lease started, its attempts counted. Entries of a job already completed (a lease that expired
 * after its holder finished) are dropped. Returns {entry, attempts} or nil.
 */
export const CLAIM = `
local now, lease, host, accept = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4]
local function circuitType(p)
  if type(p) ~= 'table' then return '' end
  local ct = p.circuitType
  if type(ct) == 'string' then return ct end
  local acc = p.inputCompressedAccounts or p['input-compressed-accounts']
  local adr = p.newAddresses or p['new-addresses']
  local hasAcc = type(acc) == 'table' and next(acc) ~= nil
  local hasAdr = type(adr) == 'table' and next(adr) ~= nil
  if hasAcc and hasAdr then return 'combined' elseif hasAdr then return 'non-inclusion' else return 'inclusion' end
end
local function lastFind(s, pat)
  local at, from = nil, 1
  while true do
    local i = string.find(s, pat, from, true)
    if not i then return at end
    at, from = i, i + 1
  end
end
for i = 4, #KEYS, 2 do
  local list, proc = KEYS[i], KEYS[i + 1]
  for _, entry in ipairs(redis.call('LRANGE', list, 0, tonumber(ARGV[5]) - 1)) do
    local ok, job = pcall(cjson.decode, entry)
    if ok and type(job) == 'table' and type(job.id) == 'string' then
      local jobKey = ARGV[7] .. job.id
      if redis.call('HGET', jobKey, 'status') == 'completed' then
        redis.call('LREM', list, 1, entry)
      elseif string.find(accept, ',' .. circuitType(job.payload) .. ',', 1, true) then
        redis.call('LREM', list, 1, entry)
        local ps, ce = string.find(entry, '"payload":', 1, true), lastFind(entry, ',"created_at":')
        local raw = (ps and ce and ps < ce) and string.sub(entry, ps + 10, ce - 1) or cjson.encode(job.payload)
        local procEntry = '{"id":' .. cjson.encode(job.id .. '_processing') .. ',"type":"processing","payload":' .. raw ..
          ',"created_at":' .. cjson.encode(ARGV[6]) .. '}'
        redis.call('RPUSH', proc, procEntry)
        redis.call('ZADD', KEYS[1], now + lease, job.id)
        redis.call('HSET', KEYS[2], job.id, cjson.encode({list = list, proc = proc, entry = entry, procEntry = procEntry, host = host}))
        local n = redis.call('HINCRBY', KEYS[3], job.id, 1)
        redis.call('HSET', jobKey, 'status', 'processing', 'host', host, 'started_at', ARGV[6])
        if redis.call('TTL', jobKey) < 0 then redis.call('EXPIRE', jobKey, ARGV[8]) end
        return {entry, n}
      end
    end
  end
end
return nil
`;

/** KEYS: leases, leased; ARGV: id, host, lease until (ms). 1 while the lease is this host's, else 0. */
export const RENEW = `
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if not raw or cjson.decode(raw).host ~= ARGV[2] then return 0 end
redis.call('ZADD', KEYS[1], 'XX', ARGV[3], ARGV[1])
return 1
`;

/**
 * KEYS: leases, leased, attempts, resultKey, jobKey, stats, hostJobs, resultsList (or any key);
 * ARGV: id, host, result, ttl, resultsEntry ('' for none), endedCh, circuit, keySha256,
 * completedAt, resultsMax, dedupPrefix.
 * The first result is the job's (1); a later one, from a host whose lease expired meanwhile, is
 * dropped (0). Either way this host's lease ends.
 */
export const COMPLETE = `
local first = redis.call('SET', KEYS[4], ARGV[3], 'EX', ARGV[4], 'NX')
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if raw then
  local info = cjson.decode(raw)
  if info.host == ARGV[2] then
    redis.call('LREM', info.proc, 1, info.procEntry)
    redis.call('ZREM', KEYS[1], ARGV[1])
    redis.call('HDEL', KEYS[2], ARGV[1])
  end
end
if not first then return 0 end
if ARGV[5] ~= '' then
  redis.call('RPUSH', KEYS[8], ARGV[5])
  redis.call('LTRIM', KEYS[8], -tonumber(ARGV[10]), -1)
end
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('HSET', KEYS[5], 'status', 'completed', 'host', ARGV[2], 'completed_at', ARGV[9], 'circuit', ARGV[7], 'key_sha256', ARGV[8])
redis.call('EXPIRE', KEYS[5], ARGV[4])
local dedup = redis.call('HGET', KEYS[5], 'dedup')
if dedup then redis.call('EXPIRE', ARGV[11] .. dedup, ARGV[4]) end
redis.call('HINCRBY', KEYS[7], ARGV[2], 1)
redis.call('HINCRBY', KEYS[6], 'completed', 1)
redis.call('PUBLISH', ARGV[6], ARGV[1])
return 1
`;

/**
 * KEYS: leases, leased, attempts, failed, stats; ARGV: id, host, error, errorKind, failedAt,
 * maxAttempts, retryable ('1'/'0'), ttl, jobPrefix, dedupPrefix, endedCh, addedCh, failedMax.
 * A retryable failure under the attempt limit goes back to the end of its list (1); otherwise the
 * job fails (2). 0 when the lease is no longer this host's (the reaper took it back).
 */
export const FAIL =
  FAIL_JOB +
  `
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if not raw then return 0 end
local info = cjson.decode(raw)
if info.host ~= ARGV[2] then return 0 end
releaseLease(ARGV[1], info, KEYS[1], KEYS[2])
local n = tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0')
if ARGV[7] == '1' and n < tonumber(ARGV[6]) then
  redis.call('RPUSH', info.list, info.entry)
  redis.call('HSET', ARGV[9] .. ARGV[1], 'status', 'queued')
  redis.call('HINCRBY', KEYS[5], 'retries', 1)
  redis.call('PUBLISH', ARGV[12], '1')
  return 1
end
failJob(ARGV[1], info, ARGV[3], ARGV[4], ARGV[5], ARGV[8], ARGV[9], ARGV[10], KEYS[4], KEYS[3], KEYS[5], ARGV[11], tonumber(ARGV[13]))
return 2
`;

/**
 * KEYS: leases, leased, attempts, failed, stats; ARGV: now ms, maxAttempts, failedAt, ttl,
 * jobPrefix, dedupPrefix, endedCh, addedCh, failedMax.
 * Every lease past its time: the job goes back to the head of its list (it waited longest), or,
 * after maxAttempts, fails naming the last host. Returns {requeued, failed}.
 */
export const REAP =
  FAIL_JOB +
  `
local requeued, failed = 0, 0
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 100)) do
  local raw = redis.call('HGET', KEYS[2], id)
  redis.call('ZREM', KEYS[1], id)
  redis.call('HINCRBY', KEYS[5], 'lease_expiries', 1)
  if raw then
    local info = cjson.decode(raw)
    releaseLease(id, info, KEYS[1], KEYS[2])
    local n = tonumber(redis.call('HGET', KEYS[3], id) or '0')
    if n >= tonumber(ARGV[2]) then
      failJob(id, info, 'lease expired ' .. n .. ' times: the hosts proving it stopped answering (last: ' .. info.host .. ')',
        'prover_unavailable', ARGV[3], ARGV[4], ARGV[5], ARGV[6], KEYS[4], KEYS[3], KEYS[5], ARGV[7], tonumber(ARGV[9]))
      failed = failed + 1
    else
      redis.call('LPUSH', info.list, info.entry)
      redis.call('HSET', ARGV[5] .. id, 'status', 'queued')
      redis.call('HINCRBY', KEYS[5], 'retries', 1)
      requeued = requeued + 1
    end
  end
end
if requeued > 0 then redis.call('PUBLISH', ARGV[8], '1') end
return {requeued, failed}
`;
