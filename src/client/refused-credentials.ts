import { createHash } from 'node:crypto';
import { zoneApiOf } from '../schemas/service';
import { AuthenticationError, type CallSite } from './errors';

/**
 * Refused credentials stop at once (docs/client.md#refused-credentials). The service counts refused requests against
 * the user's budget (docs/service.md#rate-limit), so a revoked token that a refresh of 1,600 resources sent 1,600
 * times would spend it and block every tool of that user. Once the service refused a credential for an API of a zone,
 * no other request with it goes to that API of that zone in this process: each fails at once with the same
 * AuthenticationError.
 *
 * Per zone and API (ZONE_APIS: page security, CSP policies, firewall rules, filters, rulesets...), not per credential
 * or per zone: the service answers the same 403 code 10000 to a revoked token, to a token of another zone and to a
 * token not allowed that API (docs/service.md#authentication), so a refusal on one API of one zone says nothing of the
 * others. Stopped per zone, a token allowed custom rules but not page security failed the custom rules of a stack
 * that also had page security settings. A revoked token then costs one refused request per API and zone a run uses,
 * a handful, where each call cost one before the gate. A path with no zone stands for the credential itself: a refusal
 * there stops every zone.
 *
 * Until an API of a zone has answered once with the credential, one request at a time goes to it (the probe): a
 * refresh starts its reads all at once, and without it every one of them would be refused before the first refusal
 * came back.
 */

/** What the process knows of a credential on one scope (an API of a zone, or ACCOUNT). */
export type ScopeState = 'unknown' | 'accepted' | 'refused';

/** What an attempt does at the gate. */
export type Admission = 'send' | 'probe' | 'wait' | 'refuse';

/** The scope of a path with no zone: the credential itself. */
export const ACCOUNT = '*';

/**
 * Whether an attempt on a scope is sent, sent as the probe, waits for the probe in flight, or is refused at once.
 * `account` is the state of the credential itself (ACCOUNT), which a refusal there makes the state of every zone. Pure.
 */
export function admission(scope: ScopeState, account: ScopeState, probing: boolean): Admission {
  if (scope === 'refused' || account === 'refused') return 'refuse';
  if (scope === 'accepted') return 'send';
  return probing ? 'wait' : 'probe';
}

/**
 * What an answer says of the credential: refused (the client's AuthenticationError: 401, 403), accepted (any other
 * answer the service gave after reading the credentials: 2xx and the other 4xx), or nothing (no answer, a 5xx, a
 * 408 or a 429, which the service and its proxies answer before they look at the credentials). Pure.
 */
export function verdict(outcome: { status?: number; authenticationRefused: boolean }): ScopeState {
  if (outcome.authenticationRefused) return 'refused';
  const { status } = outcome;
  if (status === undefined || status >= 500 || status === 408 || status === 429) return 'unknown';
  return 'accepted';
}

/**
 * The scope of a call: its zone and API (`<zone> page_guard/policies`; a route of no known API is its own by its
 * first segment), or ACCOUNT for a path with no zone. Pure.
 */
export function scopeOf(path: string): string {
  const match = /^\/zones\/([^/?]+)\/?([^/?]*)/.exec(path);
  if (!match) return ACCOUNT;
  return `${match[1]} ${zoneApiOf(path) ?? match[2]}`;
}

/** How a scope reads in a message: `the page_guard API of zone <id>`, or `the account`. Pure. */
export function describeScope(scope: string): string {
  if (scope === ACCOUNT) return 'the account';
  const [zone, api] = scope.split(' ');
  return api ? `the ${api} API of zone ${zone}` : `zone ${zone}`;
}

/** Told once per attempt that passed the gate, with what its answer said. */
export type Settle = (outcome: { status?: number; error?: unknown }) => void;

/** The refusals and probes of one credential at one base URL, shared by every client of the process that uses it. */
export class CredentialGate {
  readonly #states = new Map<string, ScopeState>();
  /** The refusal that stopped a scope, copied into each call it refuses. */
  readonly #refusals = new Map<string, AuthenticationError>();
  /** Resolvers of the attempts waiting for a scope's probe to settle. */
  readonly #waiters = new Map<string, Array<() => void>>();
  readonly #probing = new Set<string>();

  /**
   * Waits until an attempt on `site` may be sent and answers how to tell what its answer said; throws the
   * AuthenticationError of an earlier refusal instead when the credential was refused for this scope.
   */
  async enter(site: CallSite): Promise<Settle> {
    const scope = scopeOf(site.path);
    for (;;) {
      const decision = admission(this.#state(scope), this.#state(ACCOUNT), this.#probing.has(scope));
      if (decision === 'refuse') throw this.#refused(scope, site);
      if (decision === 'send') return (outcome) => this.#settle(scope, outcome, false);
      if (decision === 'probe') {
        this.#probing.add(scope);
        return (outcome) => this.#settle(scope, outcome, true);
      }
      await new Promise<void>((resolve) => this.#waiters.set(scope, [...(this.#waiters.get(scope) ?? []), resolve]));
    }
  }

  #state(scope: string): ScopeState {
    return this.#states.get(scope) ?? 'unknown';
  }

  #settle(scope: string, outcome: { status?: number; error?: unknown }, probe: boolean): void {
    const said = verdict({ status: outcome.status, authenticationRefused: outcome.error instanceof AuthenticationError });
    if (said === 'refused') {
      this.#states.set(scope, 'refused');
      if (!this.#refusals.has(scope)) this.#refusals.set(scope, outcome.error as AuthenticationError);
    } else if (said === 'accepted' && this.#state(scope) === 'unknown') {
      this.#states.set(scope, 'accepted');
    }
    if (!probe) return;
    this.#probing.delete(scope);
    const waiters = this.#waiters.get(scope) ?? [];
    this.#waiters.delete(scope);
    for (const wake of waiters) wake();
  }

  /** The refusal of this call: the earlier one's status and codes, this call's method and path. */
  #refused(scope: string, site: CallSite): AuthenticationError {
    const earlier = this.#refusals.get(scope) ?? this.#refusals.get(ACCOUNT)!;
    const where = describeScope(this.#refusals.has(scope) ? scope : ACCOUNT);
    const reason = earlier.message.slice(earlier.message.indexOf(' failed: ') + ' failed: '.length);
    return new AuthenticationError(
      `${site.method} ${site.path} failed: ${reason} (not sent: the service refused these credentials for ${where} earlier in this process)`,
      { method: site.method, path: site.path, status: earlier.status, errors: earlier.errors, attempts: 0 },
    );
  }
}

/** A SHA-256 of the base URL and the credential values: the registry's key, from which no credential can be read back. */
export function credentialDigest(baseUrl: string, secrets: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify([baseUrl.replace(/\/+$/, ''), secrets])).digest('hex');
}

// Kept on globalThis under a registered symbol, as the rate budgets are (rate-budget.ts): two copies of this package
// in one process still stop together.
const REGISTRY = Symbol.for('pulumi-zoneguard.refused-credentials.v1');

/** The process's gate for these credentials at this base URL, created on first use. */
export function credentialGate(baseUrl: string, secrets: readonly string[]): CredentialGate {
  const holder = globalThis as { [REGISTRY]?: Map<string, CredentialGate> };
  holder[REGISTRY] ??= new Map();
  const key = credentialDigest(baseUrl, secrets);
  let gate = holder[REGISTRY].get(key);
  if (!gate) {
    gate = new CredentialGate();
    holder[REGISTRY].set(key, gate);
  }
  return gate;
}
