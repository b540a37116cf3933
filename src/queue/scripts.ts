// The queue's state changes, each one Lua script run atomically by Redis: a job is never in two
// places, and two processes racing (two hosts claiming, a reaper and a finishing host) leave one
// outcome. Light's entries are kept byte for byte where Light reads them back (the pending entry a
// lease puts back, `original_job` of a failed entry); zkgate's own state is in `zkgate:` keys.
//
// Every script does O(1) work per job it touches, whatever the lists hold: hosts claim job ids from
// a per-kind list of ids (`zkgate:ready:<kind>`), never by reading entries, so a list full of
// bodies no zkgate host proves (Light's batch bodies) costs a claim nothing. Times are Redis's own
// (TIME): leases, deadlines and expiries do not depend on any host's clock. Scripts name the job
// keys they derive from ids (`zkgate:job:<id>`): standalone Redis only (job-queue.ts refuses a
// cluster).

/** The time in ms on Redis's clock, and the helpers the scripts share. */
const COMMON = `
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- Ends a job as failed: Light's failed entry, the job's state, its de-duplication key dropped so the
-- same inputs may be tried again, every key it made set to expire.
local function failJob(id, jobKey, err, kind, failedAt, ttl, dedupPrefix, failedList, stats, endedCh, failedMax, counter)
  local entry = redis.call('HGET', jobKey, 'entry') or cjson.encode({id = id})
  local failed = '{"id":' .. cjson.encode(id .. '_failed') .. ',"type":"failed","payload":{"error":' .. cjson.encode(err) ..
    ',"failed_at":' .. cjson.encode(failedAt) .. ',"original_job":' .. entry .. '},"created_at":' .. cjson.encode(failedAt) .. '}'
  redis.call('RPUSH', failedList, failed)
  redis.call('LTRIM', failedList, -failedMax, -1)
  local dedup = redis.call('HGET', jobKey, 'dedup')
  if dedup then redis.call('DEL', dedupPrefix .. dedup) end
  redis.call('HSET', jobKey, 'status', 'failed', 'error', err, 'error_kind', kind, 'failed_at', failedAt)
  redis.call('HDEL', jobKey, 'token')
  redis.call('EXPIRE', jobKey, ttl)
  redis.call('HINCRBY', stats, counter, 1)
  redis.call('PUBLISH', endedCh, id)
end
-- Ends this holder's lease of a job: its processing entry, its place in the lease set.
local function releaseLease(id, info, leases, leased)
  redis.call('LREM', info.proc, 1, info.procEntry)
  redis.call('ZREM', leases, id)
  redis.call('HDEL', leased, id)
end
-- Takes a job's pending entry out of its list; false when it is not there. zkgate's own lists hold
-- entries in the order of their ready ids, so the entry is found at the head. In Light's lists a
-- Light worker may have popped it, and thousands of Light's bodies may follow: looked for near the
-- head only (where a taken-in job sits), never scanned through.
local function takeEntry(queue, entry)
  if string.sub(queue, 1, 7) ~= 'zkgate:' and not redis.call('LPOS', queue, entry, 'MAXLEN', 16) then return false end
  return redis.call('LREM', queue, 1, entry) > 0
end
-- Puts a job back where hosts take it: its pending entry and its id, at the head or the tail.
local function requeue(jobKey, id, head)
  local queue, ready, entry = unpack(redis.call('HMGET', jobKey, 'queue', 'ready', 'entry'))
  local push = head and 'LPUSH' or 'RPUSH'
  redis.call(push, queue, entry)
  redis.call(push, ready, id)
  redis.call('HSET', jobKey, 'status', 'queued')
  redis.call('HDEL', jobKey, 'token')
end
`;

/**
 * KEYS: pending list, jobKey, dedupKey (or any key when none), ready list of the job's kind;
 * ARGV: id, entry, createdAt, circuit, maxDepth, stateTtl, addedCh, jobPrefix, dedupHash ('' for
 * none), circuitType, kind, waitMs (how long the job is wanted), mayBuild ('1'/'0').
 * Returns {id, 0} queued, {existingId, 1} the same inputs already queued, running or done and still
 * wanted, {'', 2} full.
 */
export const SUBMIT =
  COMMON +
  `
local now = nowMs()
if ARGV[9] ~= '' then
  local existing = redis.call('GET', KEYS[3])
  if existing then
    local st, deadline = unpack(redis.call('HMGET', ARGV[8] .. existing, 'status', 'deadline'))
    -- A completed job's result is shared; a queued or running one only until its own deadline (a
    -- job its worker lost must not hold the inputs: every joiner would time out with it).
    if st == 'completed' or ((st == 'queued' or st == 'processing') and tonumber(deadline or '0') > now) then
      return {existing, 1}
    end
  end
end
if redis.call('LLEN', KEYS[4]) >= tonumber(ARGV[5]) then return {'', 2} end
local deadline = now + tonumber(ARGV[12])
redis.call('RPUSH', KEYS[1], ARGV[2])
redis.call('RPUSH', KEYS[4], ARGV[1])
redis.call('HSET', KEYS[2], 'status', 'queued', 'created_at', ARGV[3], 'circuit', ARGV[4], 'circuit_type', ARGV[10],
  'queue', KEYS[1], 'ready', KEYS[4], 'kind', ARGV[11], 'entry', ARGV[2], 'deadline', deadline, 'attempts', 0,
  'may_build', ARGV[13])
-- Nothing a job makes outlives it: its state a while after its deadline, its dedup key until then.
local wanted = math.ceil(tonumber(ARGV[12]) / 1000)
redis.call('EXPIRE', KEYS[2], wanted + tonumber(ARGV[6]))
if ARGV[9] ~= '' then
  redis.call('HSET', KEYS[2], 'dedup', ARGV[9])
  redis.call('SET', KEYS[3], ARGV[1], 'EX', wanted)
end
redis.call('PUBLISH', ARGV[7], '1')
return {ARGV[1], 0}
`;

/**
 * KEYS: leases, leased, stats, then the ready lists to take from, in order; ARGV: leaseMs, host,
 * token, startedAt (RFC 3339), jobPrefix, ids to look at in all (a bound), failedList, failedAt,
 * ttl, dedupPrefix, endedCh, failedMax, pid (the holder's process, for an operator's eyes).
 * Takes the first job still wanted from the ready lists in order: its pending entry moved to its
 * processing list (Light's), its lease started under `token`, its attempt counted. Ids of jobs
 * gone, done or past their deadline are dropped (the last failed as not taken in time). An entry a
 * Light worker took meanwhile marks its job as Light's. Returns {entry, attempts, msLeft, mayBuild,
 * id} or nil.
 */
export const CLAIM =
  COMMON +
  `
local now = nowMs()
local looked, budget = 0, tonumber(ARGV[6])
for i = 4, #KEYS do
  while looked < budget do
    local id = redis.call('LPOP', KEYS[i])
    if not id then break end
    looked = looked + 1
    local jobKey = ARGV[5] .. id
    local st, deadline, queue, entry = unpack(redis.call('HMGET', jobKey, 'status', 'deadline', 'queue', 'entry'))
    if st == 'queued' then
      if tonumber(deadline) <= now then
        takeEntry(queue, entry)
        failJob(id, jobKey, 'no prover host took the job before its deadline: the client stopped waiting', 'prover_timeout',
          ARGV[8], ARGV[9], ARGV[10], ARGV[7], KEYS[3], ARGV[11], tonumber(ARGV[12]), 'expired')
      elseif not takeEntry(queue, entry) and string.sub(queue, 1, 7) ~= 'zkgate:' then
        -- A Light worker popped it (it reads Light's lists, not zkgate's ids): the job is its.
        redis.call('HSET', jobKey, 'status', 'processing', 'host', 'a Light worker')
      else
        local pl = string.find(entry, '"payload":', 1, true)
        local cl = string.find(entry, ',"created_at":', pl or 1, true)
        local last = cl
        while cl do
          last = cl
          cl = string.find(entry, ',"created_at":', cl + 1, true)
        end
        local raw = (pl and last and pl < last) and string.sub(entry, pl + 10, last - 1) or 'null'
        local proc = string.gsub(queue, '_queue$', '_processing_queue')
        local procEntry = '{"id":' .. cjson.encode(id .. '_processing') .. ',"type":"processing","payload":' .. raw ..
          ',"created_at":' .. cjson.encode(ARGV[4]) .. '}'
        redis.call('RPUSH', proc, procEntry)
        redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), id)
        redis.call('HSET', KEYS[2], id, cjson.encode({proc = proc, procEntry = procEntry, host = ARGV[2], token = ARGV[3], pid = ARGV[13]}))
        local n = redis.call('HINCRBY', jobKey, 'attempts', 1)
        redis.call('HSET', jobKey, 'status', 'processing', 'host', ARGV[2], 'started_at', ARGV[4], 'token', ARGV[3])
        return {entry, n, tonumber(deadline) - now, redis.call('HGET', jobKey, 'may_build') or '0', id}
      end
    end
  end
end
return nil
`;

/**
 * KEYS: Light's list, the ready list of proofs, stats; ARGV: jobPrefix, accepted circuit types
 * (",a,b,"), most bytes, stateTtl, waitMs.
 * A job Light's own processes wrote (no zkgate record) at the head of Light's list, of a type zkgate
 * hosts prove: recorded and listed as ready, so a host claims it like its own. One look at the head
 * only, and no decoding past `maxBytes`: bodies no host proves cost nothing; a job behind one waits
 * for Light's workers. Returns 1 when one was taken in.
 */
export const INTAKE =
  COMMON +
  `
local head = redis.call('LINDEX', KEYS[1], 0)
if not head or #head > tonumber(ARGV[3]) then return 0 end
local ok, job = pcall(cjson.decode, head)
if not ok or type(job) ~= 'table' or type(job.id) ~= 'string' or type(job.payload) ~= 'table' then return 0 end
local jobKey = ARGV[1] .. job.id
if redis.call('EXISTS', jobKey) == 1 then return 0 end
local p = job.payload
local ct = p.circuitType
if type(ct) ~= 'string' then
  local acc = p.inputCompressedAccounts or p['input-compressed-accounts']
  local adr = p.newAddresses or p['new-addresses']
  local hasAcc = type(acc) == 'table' and next(acc) ~= nil
  local hasAdr = type(adr) == 'table' and next(adr) ~= nil
  if hasAcc and hasAdr then ct = 'combined' elseif hasAdr then ct = 'non-inclusion' else ct = 'inclusion' end
end
if not string.find(ARGV[2], ',' .. ct .. ',', 1, true) then return 0 end
local deadline = nowMs() + tonumber(ARGV[5])
redis.call('HSET', jobKey, 'status', 'queued', 'created_at', job.created_at or '', 'circuit_type', ct, 'queue', KEYS[1],
  'ready', KEYS[2], 'kind', 'prove', 'entry', head, 'deadline', deadline, 'attempts', 0, 'may_build', '0', 'foreign', '1')
redis.call('EXPIRE', jobKey, math.ceil(tonumber(ARGV[5]) / 1000) + tonumber(ARGV[4]))
redis.call('RPUSH', KEYS[2], job.id)
redis.call('HINCRBY', KEYS[3], 'taken_in', 1)
return 1
`;

/**
 * KEYS: leases, leased, jobKey; ARGV: id, token, leaseMs, graceMs.
 * 1 while the lease is this token's and the job still wanted (its deadline and `graceMs` not past),
 * else 0: a proof that outlives its deadline loses its lease, and the reaper ends the job.
 */
export const RENEW =
  COMMON +
  `
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if not raw or cjson.decode(raw).token ~= ARGV[2] then return 0 end
local now = nowMs()
local deadline = tonumber(redis.call('HGET', KEYS[3], 'deadline') or '0')
if now > deadline + tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[3]), ARGV[1])
return 1
`;

/**
 * KEYS: leases, leased, resultKey, jobKey, stats, hostJobs, resultsList (or any key);
 * ARGV: id, token, host, result, ttl, resultsEntry ('' for none), endedCh, circuit, keySha256,
 * completedAt, resultsMax, dedupPrefix.
 * The first result is the job's (1); a later one (a holder whose lease expired meanwhile) is
 * dropped (0). Either way this token's lease ends.
 */
export const COMPLETE =
  COMMON +
  `
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if raw then
  local info = cjson.decode(raw)
  if info.token == ARGV[2] then releaseLease(ARGV[1], info, KEYS[1], KEYS[2]) end
end
-- Only a job still wanted takes a result: not one failed meanwhile (its deadline passed, its
-- attempts ran out), whose waiters were told so.
local st, queue, entry = unpack(redis.call('HMGET', KEYS[4], 'status', 'queue', 'entry'))
if st ~= 'processing' and st ~= 'queued' then return 0 end
local first = redis.call('SET', KEYS[3], ARGV[4], 'EX', ARGV[5], 'NX')
if not first then return 0 end
-- Put back by a reaper while its first holder finished: its pending entry goes (its id is dropped
-- at the next claim).
if st == 'queued' then takeEntry(queue, entry) end
if ARGV[6] ~= '' then
  redis.call('RPUSH', KEYS[7], ARGV[6])
  redis.call('LTRIM', KEYS[7], -tonumber(ARGV[11]), -1)
end
redis.call('HSET', KEYS[4], 'status', 'completed', 'host', ARGV[3], 'completed_at', ARGV[10], 'circuit', ARGV[8], 'key_sha256', ARGV[9])
redis.call('HDEL', KEYS[4], 'token', 'entry')
redis.call('EXPIRE', KEYS[4], ARGV[5])
local dedup = redis.call('HGET', KEYS[4], 'dedup')
if dedup then redis.call('EXPIRE', ARGV[12] .. dedup, ARGV[5]) end
redis.call('HINCRBY', KEYS[6], ARGV[3], 1)
redis.call('HINCRBY', KEYS[5], 'completed', 1)
redis.call('PUBLISH', ARGV[7], ARGV[1])
return 1
`;

/**
 * KEYS: leases, leased, failed, stats, jobKey; ARGV: id, token, error, errorKind, failedAt,
 * maxAttempts, retryable ('1'/'0'), ttl, dedupPrefix, endedCh, addedCh, failedMax.
 * A retryable failure under the attempt limit, the job still wanted, goes back to the tail (1);
 * otherwise the job fails (2). 0 when the lease is no longer this token's; 3 when the job was done
 * meanwhile (a completed job is never failed or queued again).
 */
export const FAIL =
  COMMON +
  `
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if not raw then return 0 end
local info = cjson.decode(raw)
if info.token ~= ARGV[2] then return 0 end
releaseLease(ARGV[1], info, KEYS[1], KEYS[2])
local st, attempts, deadline = unpack(redis.call('HMGET', KEYS[5], 'status', 'attempts', 'deadline'))
if st == 'completed' or not st then return 3 end
if ARGV[7] == '1' and tonumber(attempts or '0') < tonumber(ARGV[6]) and tonumber(deadline or '0') > nowMs() then
  requeue(KEYS[5], ARGV[1], false)
  redis.call('HINCRBY', KEYS[4], 'retries', 1)
  redis.call('PUBLISH', ARGV[11], '1')
  return 1
end
failJob(ARGV[1], KEYS[5], ARGV[3], ARGV[4], ARGV[5], ARGV[8], ARGV[9], KEYS[3], KEYS[4], ARGV[10], tonumber(ARGV[12]), 'failed')
return 2
`;

/**
 * KEYS: leases, leased, failed, stats, reapedAt, then the ready lists; ARGV: maxAttempts, failedAt,
 * ttl, jobPrefix, dedupPrefix, endedCh, addedCh, failedMax, leaseMs.
 * When no reaper has run for two leases (Redis stalled, or every process was away), every lease
 * is first given one more lease's time and nothing is reaped: leases that ran out only because
 * their holders could not reach Redis are renewed by them, not proved a second time elsewhere.
 * Every lease past its end (Redis's clock): the job goes back to the head of its list (it waited
 * longest), or, after maxAttempts or past its deadline, fails naming the last host. A job completed
 * meanwhile is left as it is. Then the jobs at the head of each ready list whose deadline passed
 * with no host free to take them end as not taken in time (so that their entries do not outlive
 * them). Returns {requeued, failed}.
 */
export const REAP =
  COMMON +
  `
local requeued, failed = 0, 0
local now = nowMs()
local lease = tonumber(ARGV[9])
local last = tonumber(redis.call('GET', KEYS[5]) or '0')
redis.call('SET', KEYS[5], now, 'PX', 10 * lease)
if last > 0 and now - last > 2 * lease then
  local held = redis.call('ZRANGE', KEYS[1], 0, -1)
  for _, id in ipairs(held) do
    if tonumber(redis.call('ZSCORE', KEYS[1], id)) < now + lease then redis.call('ZADD', KEYS[1], now + lease, id) end
  end
  redis.call('HINCRBY', KEYS[4], 'stall_graces', 1)
  return {0, 0}
end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 100)) do
  local raw = redis.call('HGET', KEYS[2], id)
  redis.call('ZREM', KEYS[1], id)
  redis.call('HINCRBY', KEYS[4], 'lease_expiries', 1)
  if raw then
    local info = cjson.decode(raw)
    releaseLease(id, info, KEYS[1], KEYS[2])
    local jobKey = ARGV[4] .. id
    local st, attempts, deadline = unpack(redis.call('HMGET', jobKey, 'status', 'attempts', 'deadline'))
    if st == 'processing' and redis.call('HGET', jobKey, 'token') == info.token then
      local n = tonumber(attempts or '0')
      if tonumber(deadline or '0') <= now then
        failJob(id, jobKey, 'the proof did not finish before its deadline (last host: ' .. info.host .. ')', 'prover_timeout',
          ARGV[2], ARGV[3], ARGV[5], KEYS[3], KEYS[4], ARGV[6], tonumber(ARGV[8]), 'failed')
        failed = failed + 1
      elseif n >= tonumber(ARGV[1]) then
        failJob(id, jobKey, 'lease expired ' .. n .. ' times: the hosts proving it stopped answering (last: ' .. info.host .. ')',
          'prover_unavailable', ARGV[2], ARGV[3], ARGV[5], KEYS[3], KEYS[4], ARGV[6], tonumber(ARGV[8]), 'failed')
        failed = failed + 1
      else
        requeue(jobKey, id, true)
        redis.call('HINCRBY', KEYS[4], 'retries', 1)
        requeued = requeued + 1
      end
    end
  end
end
for i = 6, #KEYS do
  for _ = 1, 100 do
    local id = redis.call('LINDEX', KEYS[i], 0)
    if not id then break end
    local jobKey = ARGV[4] .. id
    local st, deadline, queue, entry = unpack(redis.call('HMGET', jobKey, 'status', 'deadline', 'queue', 'entry'))
    if st == 'queued' and tonumber(deadline) > now then break end
    redis.call('LPOP', KEYS[i])
    if st == 'queued' then
      takeEntry(queue, entry)
      failJob(id, jobKey, 'no prover host took the job before its deadline: the client stopped waiting', 'prover_timeout',
        ARGV[2], ARGV[3], ARGV[5], KEYS[3], KEYS[4], ARGV[6], tonumber(ARGV[8]), 'expired')
    end
  end
end
if requeued > 0 then redis.call('PUBLISH', ARGV[7], '1') end
return {requeued, failed}
`;
