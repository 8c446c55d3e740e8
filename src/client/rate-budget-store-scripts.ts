// The Lua scripts the shared budget runs on the store beside the limiter's own (src/client/rate-budget-store.ts), each
// atomic and dated by the Redis server's clock (TIME), the one clock every process of the fleet shares.

export const END_COMMAND = 'zoneguardRateBudgetEnd';
/** KEYS[1]: the budget's sorted set; ARGV[1]: the reservation (its member). Replaces it by the server's time now. */
export const END_SCRIPT = `
local t = redis.call('TIME')
local ended = t[1] * 1000000 + t[2]
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[1], 'NX', ended, ended)
return 1
`;

export const CLEAN_COMMAND = 'zoneguardRateBudgetClean';
/**
 * KEYS[1]: the budget's sorted set; ARGV[1]: its interval in ms. Removes the members dated past the server's time plus
 * the interval, and answers how many. No honest member is: each is the server's own time of a reservation or of a
 * request's end. A host with a skewed clock or a stale writer can leave one there, and the counting script would
 * count it in every window until that date (30 days ahead: a wait longer than a timer can hold, which fires at once,
 * a busy loop of the whole fleet).
 */
export const CLEAN_SCRIPT = `
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
return redis.call('ZREMRANGEBYSCORE', KEYS[1], '(' .. (now + tonumber(ARGV[1]) * 1000), '+inf')
`;

export const FLEET_COMMAND = 'zoneguardRateBudgetFleet';
/**
 * KEYS[1]: the budget's sorted set; KEYS[2]: the processes that heard the service lately, by id; ARGV[1]: the
 * service's window in ms; ARGV[2]: this process's id. Notes this process as present now, forgets those not heard from
 * within the window and those dated after now, and answers how many of the fleet's requests fall in the window ending
 * at the server's time now (those that ended within it and those still in flight: a member is a request's end once it
 * ended, its reservation until then), how many processes are present, this one included, and how many members dated
 * after now it removed. No honest member is dated after now: each is the server's own time when a process wrote it.
 * A stale or hostile writer's 20,000 members dated ahead made 20,001 processes, each allowance a 20,001st of what is
 * left (nothing), for as long as they stood: the set's expiry is renewed at each call.
 */
export const FLEET_SCRIPT = `
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local since = now - tonumber(ARGV[1]) * 1000
local ahead = redis.call('ZREMRANGEBYSCORE', KEYS[2], '(' .. now, '+inf')
redis.call('ZADD', KEYS[2], now, ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. since)
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return { redis.call('ZCOUNT', KEYS[1], since, now), redis.call('ZCARD', KEYS[2]), ahead }
`;
