import { SERVICE_WINDOW_MS, rateBudgetProblem, type RateBudgetLimits, type ServiceWord, type WordNote } from './rate-budget';

type Headers = Record<string, string | string[] | undefined>;

function headerText(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The members of a structured list (`"default";r=5;t=2, "burst";r=0;t=1`), each with its whole-number parameters. */
function members(text: string | undefined): Array<Record<string, number>> {
  if (text === undefined) return [];
  return text.split(',').map((member) => {
    const parameters: Record<string, number> = {};
    for (const match of member.matchAll(/(?:^|[;\s])([a-z]+)=(\d+)/g)) parameters[match[1]!] ??= Number(match[2]);
    return parameters;
  });
}

/**
 * One limit honouring every policy (`q` requests per `w` seconds each): a window of one of theirs, and as many requests
 * in it as each policy allows (a window shorter than a policy's spends at most its quota in any span of it; a window
 * longer than another policy's is covered by that many of its windows), chosen for the most requests a second.
 * One policy is itself. Undefined when there is none. Pure.
 */
export function strictestLimits(policies: readonly RateBudgetLimits[]): RateBudgetLimits | undefined {
  let best: RateBudgetLimits | undefined;
  for (const { windowMs } of policies) {
    let requests = Number.POSITIVE_INFINITY;
    for (const policy of policies) {
      const share = policy.windowMs <= windowMs ? policy.requests : Math.floor(policy.requests / Math.ceil(policy.windowMs / windowMs));
      requests = Math.min(requests, share);
    }
    if (requests < 1) continue;
    if (!best || requests / windowMs > best.requests / best.windowMs) best = { requests, windowMs };
  }
  return best;
}

/** A number of seconds said by the service, bounded by its window: `[seconds, note]`. Pure. */
function bounded(seconds: number, kind: WordNote['kind'], said: string): [number, WordNote | undefined] {
  const most = SERVICE_WINDOW_MS / 1000;
  if (seconds <= most) return [seconds, undefined];
  const what = kind === 'reset' ? 'a reset' : 'a window';
  const line = `zoneguard: the service said ${what} of ${seconds} s (${said}), longer than its ${most} s window (docs/service.md#rate-limit): read as ${most} s`;
  return [most, { kind, line }];
}

/** The older `X-RateLimit-Reset`: seconds, a Unix time in seconds (past a billion: 2001 on) or in milliseconds. */
function olderReset(reset: number, now: number): number {
  if (reset > 1e12) return Math.max(0, Math.ceil((reset - now) / 1000));
  if (reset > 1e9) return Math.max(0, Math.ceil(reset - now / 1000));
  return reset;
}

/** Every policy of `Ratelimit-Policy` that a budget can hold, each window bounded by the service's. */
function policiesOf(text: string | undefined, notes: WordNote[]): RateBudgetLimits[] {
  const policies: RateBudgetLimits[] = [];
  for (const { q, w } of members(text)) {
    if (q === undefined || w === undefined) continue;
    const [seconds, note] = bounded(w, 'window', `Ratelimit-Policy w=${w}`);
    if (note) notes.push(note);
    const limits = { requests: q, windowMs: seconds * 1000 };
    if (rateBudgetProblem(limits) === undefined) policies.push(limits);
  }
  return policies;
}

/**
 * What an answer's headers say of the budget: `Ratelimit: "default";r=<remaining>;t=<seconds>` with
 * `Ratelimit-Policy: "default";q=<quota>;w=<window seconds>`, or the older `X-RateLimit-Remaining`,
 * `X-RateLimit-Reset` (seconds, or a Unix time) and `X-RateLimit-Limit`. Every member of either header counts: the
 * fewest remaining governs (each request spends one of every policy), and the limit honours every policy
 * (strictestLimits). A reset or window past the service's is read as its window, with a note. Undefined when it says
 * nothing usable. Pure.
 */
export function parseRateLimitHeaders(headers: Headers, now: number): ServiceWord | undefined {
  const notes: WordNote[] = [];
  let word: { remaining: number; resetSeconds: number; said: string } | undefined;
  for (const { r, t } of members(headerText(headers, 'ratelimit'))) {
    if (r === undefined || t === undefined) continue;
    if (!word || r < word.remaining || (r === word.remaining && t > word.resetSeconds)) word = { remaining: r, resetSeconds: t, said: `Ratelimit t=${t}` };
  }
  if (!word) {
    const [remaining] = members(`r=${headerText(headers, 'x-ratelimit-remaining')?.trim() ?? ''}`).map((member) => member['r']);
    const [reset] = members(`t=${headerText(headers, 'x-ratelimit-reset')?.trim() ?? ''}`).map((member) => member['t']);
    if (remaining === undefined || reset === undefined) return undefined;
    word = { remaining, resetSeconds: olderReset(reset, now), said: `X-RateLimit-Reset ${reset}` };
  }
  const [resetSeconds, note] = bounded(word.resetSeconds, 'reset', word.said);
  if (note) notes.push(note);
  const policies = policiesOf(headerText(headers, 'ratelimit-policy'), notes);
  const limits = strictestLimits(policies);
  if (policies.length > 1 && limits) {
    const said = policies.map((policy) => `${policy.requests} per ${policy.windowMs / 1000} s`).join(', ');
    notes.push({
      kind: 'policies',
      line: `zoneguard: the service said ${policies.length} rate limit policies (${said}): keeping to all of them, at ${limits.requests} per ${limits.windowMs / 1000} s`,
    });
  }
  return { remaining: word.remaining, resetMs: resetSeconds * 1000, ...(limits ? { limits } : {}), ...(notes.length > 0 ? { notes } : {}) };
}
