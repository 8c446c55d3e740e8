import type { RequestCounters, RequestLogEntry } from './context';
import type { EmulatorCredentials, TokenGrant } from './credentials';
import type { ZoneApi } from '../schemas/service';
import type { FaultSpec } from './faults';
import type { ZoneMoment } from './state';
import type { ZoneSeed } from './seed';
import type { LegacyFirewallState, Plan } from './state';

/** A zone as the admin API describes it. */
export interface AdminZone {
  id: string;
  name: string;
  plan: Plan;
  hosts: string[];
  ruleQuota: number;
  /** The token accepted for this zone only. */
  token: string;
  migrationDelayMs: number;
  /** The legacy firewall rules and filters API: available, maintenance (reads only) or retired. */
  legacyFirewall: LegacyFirewallState;
}

/** An admin API failure: the status and the error envelope's messages. */
export class EmulatorAdminError extends Error {
  override readonly name = 'EmulatorAdminError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** HTTP client of the emulator's admin API (Node's fetch), usable against an emulator in another process. */
export class EmulatorAdmin {
  /**
   * @param adminUrl the admin API's base, e.g. `http://127.0.0.1:8787/__admin`.
   * @param options.token the admin token, required by an emulator serving off loopback (it prints it at start).
   */
  constructor(
    readonly adminUrl: string,
    private readonly options: { token?: string } = {},
  ) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    if (this.options.token !== undefined) headers.authorization = `Bearer ${this.options.token}`;
    const response = await fetch(`${this.adminUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const envelope = (await response.json()) as { success: boolean; result: T; errors: { message: string }[] };
    if (!response.ok || !envelope.success) {
      throw new EmulatorAdminError(response.status, `${method} ${path}: ${envelope.errors.map((e) => e.message).join('; ')}`);
    }
    return envelope.result;
  }

  /** The credentials accepted and the zones served. */
  info(): Promise<{ credentials: EmulatorCredentials; zones: AdminZone[] }> {
    return this.call('GET', '/info');
  }

  /** Back to the starting seed; faults, the request log and counters cleared. */
  async reset(): Promise<void> {
    await this.call('POST', '/reset');
  }

  /** Adds a zone, or replaces the zone with the same id. */
  seedZone(spec: ZoneSeed): Promise<AdminZone> {
    return this.call('POST', '/zones', spec);
  }

  /**
   * Moves a zone's legacy firewall API on (available → maintenance → retired, never back), as the public service
   * retired it; leaving available converts its firewall rules into custom rules. Answers the zone.
   */
  setLegacyFirewall(zoneId: string, state: LegacyFirewallState): Promise<AdminZone> {
    return this.call('PUT', `/zones/${zoneId}/legacy-firewall`, { state });
  }

  /**
   * Keeps the zone's history from now on (afresh): its legacy firewall rules and custom rules after every write the
   * service accepts, for a test to evaluate each step of a change. Answers the first moment, the zone as it stands.
   */
  watchZone(zoneId: string): Promise<ZoneMoment[]> {
    return this.call('POST', `/zones/${zoneId}/history`);
  }

  /** The zone's history since watchZone, oldest first (empty for a zone not watched). */
  zoneHistory(zoneId: string): Promise<ZoneMoment[]> {
    return this.call('GET', `/zones/${zoneId}/history`);
  }

  /** Forgets a zone and everything in it. */
  async removeZone(zoneId: string): Promise<void> {
    await this.call('DELETE', `/zones/${zoneId}`);
  }

  /** The zones served. */
  zones(): Promise<AdminZone[]> {
    return this.call('GET', '/zones');
  }

  /** Replaces the injected faults (one spec, or several with their own `match`). */
  async setFaults(spec: FaultSpec | FaultSpec[]): Promise<void> {
    await this.call('PUT', '/faults', spec);
  }

  /** Removes every injected fault. */
  async clearFaults(): Promise<void> {
    await this.call('DELETE', '/faults');
  }

  /** The service requests received, oldest first (the last 10,000). */
  requests(): Promise<RequestLogEntry[]> {
    return this.call('GET', '/requests');
  }

  /** Empties the request log and the counters. */
  async clearRequests(): Promise<void> {
    await this.call('DELETE', '/requests');
  }

  /** Service requests counted by route template and by status. */
  counters(): Promise<RequestCounters> {
    return this.call('GET', '/counters');
  }

  /**
   * Adds an API token to the account (no `zoneId`) or to one zone; generated unless `token` is given; allowed the
   * APIs of `apis` only, when given (ZONE_APIS).
   */
  addToken(options: { zoneId?: string; token?: string; apis?: ZoneApi[] } = {}): Promise<TokenGrant> {
    return this.call('POST', '/credentials/tokens', options);
  }

  /** Replaces a token by a new one of the same scope (generated unless `newToken` is given); the old one stops working. */
  rotateToken(token: string, newToken?: string): Promise<TokenGrant> {
    return this.call('POST', '/credentials/tokens/rotate', { token, ...(newToken !== undefined ? { newToken } : {}) });
  }

  /** Revokes a token; the account and each zone keep at least one (rotate the last one instead). */
  revokeToken(token: string): Promise<TokenGrant> {
    return this.call('POST', '/credentials/tokens/revoke', { token });
  }

  /** Replaces the account's API key (generated unless given); the old key stops working. */
  rotateKey(apiKey?: string): Promise<{ apiEmail: string; apiKey: string }> {
    return this.call('POST', '/credentials/key/rotate', apiKey !== undefined ? { apiKey } : {});
  }

  /** Everything stored for a zone. */
  inventory(zoneId: string): Promise<ZoneInventory> {
    return this.call('GET', `/zones/${zoneId}/inventory`);
  }
}

/** What `inventory` answers (see admin.ts). */
export type ZoneInventory = ReturnType<typeof import('./admin').inventory>;
