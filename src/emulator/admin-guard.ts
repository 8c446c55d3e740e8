import { isIP } from 'node:net';
import { Messages } from './errors';

/** Whether an address the emulator listens on is reachable from this machine only. */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  const v4 = bare.startsWith('::ffff:') ? bare.slice('::ffff:'.length) : bare;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/** What the guard looks at in an admin request. */
export interface AdminRequestHeaders {
  host?: string | undefined;
  origin?: string | undefined;
  authorization?: string | undefined;
}

/** Where the emulator listens, and the admin token when one is required. */
export interface AdminGuardSettings {
  /** The address listened on, as `server.address()` gives it (`127.0.0.1`, `::1`, `0.0.0.0`). */
  address: string;
  port: number;
  /** Required as `Authorization: Bearer <token>` when set (always set off loopback). */
  adminToken?: string | undefined;
}

/**
 * Why an admin request is refused, or undefined to let it through. Pure, so each case has a table test.
 *
 * The admin API hands out every credential and can reset everything, and it has no credentials of its own on
 * loopback. Two browser attacks reach a loopback server anyway (docs/emulator.md, "Admin API safety"):
 * - a page of another site POSTing to it (the browser sends an `Origin`; Node's fetch and our client send none);
 * - DNS rebinding, where a page's own host name resolves to 127.0.0.1: the browser then sends that name as `Host`.
 * Off loopback, other machines can reach it directly, so a token is required there instead.
 */
export function adminRefusal(headers: AdminRequestHeaders, settings: AdminGuardSettings): string | undefined {
  if (headers.origin !== undefined) return Messages.adminOrigin(headers.origin);
  if (settings.adminToken !== undefined) {
    return headers.authorization === `Bearer ${settings.adminToken}` ? undefined : Messages.adminToken;
  }
  const allowed = loopbackHosts(settings);
  return allowed.includes((headers.host ?? '').toLowerCase()) ? undefined : Messages.adminHost(headers.host ?? '(none)', allowed);
}

/** The `Host` values a loopback emulator answers on the admin API: its address and `localhost`, with its port. */
function loopbackHosts({ address, port }: Pick<AdminGuardSettings, 'address' | 'port'>): string[] {
  const name = isIP(address) === 6 ? `[${address}]` : address;
  return [`${name}:${port}`, `localhost:${port}`];
}

/**
 * Why a request to the service API is refused for its `Host`, or undefined. On loopback, DNS rebinding lets a web
 * page whose own name resolves to 127.0.0.1 call the emulator with the credentials the README prints, its name as
 * `Host`: only the emulator's address and `localhost` are answered. Off loopback other machines reach it by names
 * the emulator cannot know, and its credentials are the gate. Pure.
 */
export function serviceHostRefusal(host: string | undefined, settings: Pick<AdminGuardSettings, 'address' | 'port'>): string | undefined {
  if (!isLoopbackAddress(settings.address)) return undefined;
  const allowed = loopbackHosts(settings);
  return allowed.includes((host ?? '').toLowerCase()) ? undefined : Messages.serviceHost(host ?? '(none)', allowed);
}
