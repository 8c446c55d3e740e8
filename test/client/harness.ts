import type { StartedEmulator } from '../../src/emulator';
import { emulatorForFile, testClient } from '../support/emulator';

/** A running emulator as startEmulator resolves it. */
export type Emulator = StartedEmulator;

/** The zones the client tests seed; ids fixed so that messages can be asserted verbatim. */
export const ZONE = '1a2b3c4d5e6f708192a3b4c5d6e7f801';
export const OTHER_ZONE = '9f8e7d6c5b4a39281706f5e4d3c2b1a0';
export const ENTERPRISE_ZONE = 'e0e1e2e3e4e5e6e7e8e9eaebecedeeef';
/** A well-formed id that names nothing. */
export const MISSING_ID = '00000000000000000000000000000000';

const hosts = ['shop.example.com', 'www.shop.example.com', 'blog.example.com'];

/** 37 active scripts and 3 infrequent ones, on three hosts: 4 pages of 10. */
export const SCRIPT_COUNT = { active: 37, infrequent: 3 };
/** 23 active connections: 3 pages of 10. */
export const CONNECTION_COUNT = 23;
/** 31 cookies: 4 pages of 10. */
export const COOKIE_COUNT = 31;

const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString().replace('.000Z', 'Z');

/** The seed of the main test zone (business plan: scores and malicious reports on). */
export function mainZoneSeed() {
  const scripts = Array.from({ length: SCRIPT_COUNT.active + SCRIPT_COUNT.infrequent }, (_, i) => ({
    url: `https://${hosts[i % 3]}/assets/js/script-${String(i).padStart(2, '0')}.js`,
    host: hosts[i % 3]!,
    status: i < SCRIPT_COUNT.active ? 'active' : 'infrequent',
    first_seen_at: at(i),
    last_seen_at: at(i + 100),
    js_integrity_score: i % 10 === 0 ? 20 : 80,
    page_urls: [`https://${hosts[i % 3]}/`, `https://${hosts[i % 3]}/checkout`],
    versions: [{ hash: 'ab'.repeat(32), js_integrity_score: 80, fetched_at: at(i + 1) }],
  }));
  const connections = Array.from({ length: CONNECTION_COUNT }, (_, i) => ({
    url: `https://api-${i}.example.net/collect`,
    host: hosts[i % 3]!,
    status: 'active',
    first_seen_at: at(i),
  }));
  const cookies = Array.from({ length: COOKIE_COUNT }, (_, i) => ({
    type: 'first_party',
    name: `cookie_${i}`,
    host: hosts[i % 3]!,
    same_site_attribute: 'strict',
    secure_attribute: true,
    http_only_attribute: i % 2 === 0,
    max_age_attribute: i % 4 === 0 ? null : 3600,
    status: 'active',
  }));
  return {
    id: ZONE,
    name: 'shop.example.com',
    plan: 'business' as const,
    hosts,
    ruleQuota: 30,
    pageGuard: { enabled: true },
    scripts,
    connections,
    cookies,
    previousWaf: { enabled: true, sensitivity: 'high' as const, actionMode: 'simulate' as const },
    wafOverrides: [
      { description: 'legacy admin area', urls: ['shop.example.com/admin/*'], rules: { '100015': 'disable' } },
    ],
  };
}

/** An enterprise zone with no detected items, for validation mode. */
export function enterpriseZoneSeed() {
  return { id: ENTERPRISE_ZONE, name: 'bank.example.com', plan: 'enterprise' as const, previousWaf: { enabled: true } };
}

/** A second zone, to show that a zone token does not open another zone. */
export function otherZoneSeed() {
  return { id: OTHER_ZONE, name: 'other.example.org', plan: 'free' as const };
}

/** Starts an emulator for one test file and reseeds the client zones before every test. */
export function useClientZones(): () => Emulator {
  return emulatorForFile({ seed: 'empty' }, async (emulator) => {
    await emulator.admin.reset();
    await emulator.admin.seedZone(mainZoneSeed());
    await emulator.admin.seedZone(enterpriseZoneSeed());
    await emulator.admin.seedZone(otherZoneSeed());
  });
}

/** A client of the emulator with the account token; no rate budget unless a test asks for one. */
export const clientOf = testClient;

/** The error a promise rejects with (fails the test if it resolves). */
export async function failure<E = Error>(promise: Promise<unknown>): Promise<E> {
  try {
    await promise;
  } catch (error) {
    return error as E;
  }
  throw new Error('expected the call to fail, it succeeded');
}
