import type { RunIo } from '../../src/cli/commands/io';
import type { ZoneGuardClient } from '../../src/client';
import type { StartedEmulator, ZoneSeed } from '../../src/emulator';
import { emulatorForFile, testClient, zoneOfPlan } from '../support/emulator';

/** The large zone the insight tests seed: more detected items than several pages hold. */
export const BIG_ZONE = 'b16b16b16b16b16b16b16b16b16b16b1';
/** A zone with nothing detected and nothing configured. */
export const EMPTY_ZONE = 'e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0';

export const BIG_HOSTS = ['shop.example.com', 'www.example.com', 'static.example.com'] as const;

/** Third-party origins the big zone's scripts come from (one in every three scripts is first party). */
const THIRD_PARTY = ['https://cdn.vendor-a.example', 'https://js.vendor-b.example', 'https://static.vendor-c.example:8443'];

/** Counts of the big zone, by status. */
export const BIG = {
  scripts: { active: 230, infrequent: 12, inactive: 8 },
  connections: { active: 140, infrequent: 5 },
  cookies: { active: 130, inactive: 3 },
} as const;

const at = (i: number) => new Date(Date.UTC(2026, 2, 1) + i * 3_600_000).toISOString().replace('.000Z', 'Z');

/**
 * Script i of the big zone. Malicious ones: every 20th by score (i % 20 === 7, score 30), every 50th by a domain
 * report (i % 50 === 11) and every 50th by a URL report (i % 50 === 13), with categories; i === 7 also carries
 * both reports, so one script has all three reasons.
 */
export function bigScript(i: number, status: string) {
  const host = BIG_HOSTS[i % 3]!;
  const thirdParty = i % 3 !== 0;
  const origin = thirdParty ? THIRD_PARTY[Math.floor(i / 3) % THIRD_PARTY.length]! : `https://${host}`;
  const byScore = i % 20 === 7;
  const byDomain = i % 50 === 11 || i === 7;
  const byUrl = i % 50 === 13 || i === 7;
  const maliciousOrigin = byDomain || byUrl ? `https://bad-${i}.evil.example` : origin;
  return {
    url: `${maliciousOrigin}/js/${status}-${String(i).padStart(3, '0')}.js`,
    host,
    status,
    first_seen_at: at(i),
    last_seen_at: at(i + 500),
    js_integrity_score: byScore ? 30 : 50 + (i % 49),
    domain_reported_malicious: byDomain,
    url_reported_malicious: byUrl,
    ...(byDomain ? { malicious_domain_categories: ['Malware', 'Phishing'] } : {}),
    ...(byUrl ? { malicious_url_categories: ['Cryptomining', 'Malware'] } : {}),
    url_contains_cdn_cgi_path: false,
  };
}

/** The big zone: several hundred scripts, connections and cookies on three hosts (business plan). */
export function bigZoneSeed(): ZoneSeed {
  const scripts = [
    ...Array.from({ length: BIG.scripts.active }, (_, i) => bigScript(i, 'active')),
    ...Array.from({ length: BIG.scripts.infrequent }, (_, i) => bigScript(1000 + i, 'infrequent')),
    ...Array.from({ length: BIG.scripts.inactive }, (_, i) => bigScript(2000 + i, 'inactive')),
  ];
  // An infrequent script served from another host of the zone: 'self' on its own host, an origin to allow here.
  scripts[BIG.scripts.active] = { ...bigScript(1000, 'infrequent'), url: 'https://static.example.com/js/shared.js', host: 'www.example.com' };
  // One first-party script under /cdn-cgi/, for --exclude-cdn-cgi.
  scripts.push({ ...bigScript(3000, 'active'), url: 'https://shop.example.com/cdn-cgi/challenge-platform/main.js', url_contains_cdn_cgi_path: true, host: 'shop.example.com' });
  const connections = [
    ...Array.from({ length: BIG.connections.active }, (_, i) => ({
      url: `https://api-${i % 40}.collector.example/v1/${i}`,
      host: BIG_HOSTS[i % 3]!,
      status: 'active',
      first_seen_at: at(i),
      domain_reported_malicious: i % 35 === 4,
      malicious_domain_categories: i % 35 === 4 ? ['Command and Control & Botnet'] : [],
      url_reported_malicious: false,
      malicious_url_categories: [],
    })),
    ...Array.from({ length: BIG.connections.infrequent }, (_, i) => ({
      url: `https://rare-${i}.collector.example/ping`,
      host: BIG_HOSTS[i % 3]!,
      status: 'infrequent',
    })),
  ];
  const cookies = [
    ...Array.from({ length: BIG.cookies.active }, (_, i) => ({
      type: 'first_party',
      name: `cookie_${String(i).padStart(3, '0')}`,
      host: BIG_HOSTS[i % 3]!,
      domain_attribute: '.example.com',
      path_attribute: '/',
      same_site_attribute: i % 2 === 0 ? 'strict' : 'lax',
      secure_attribute: true,
      http_only_attribute: i % 4 === 0,
      max_age_attribute: i % 5 === 0 ? null : 3600 * (i + 1),
      status: 'active',
    })),
    ...Array.from({ length: BIG.cookies.inactive }, (_, i) => ({
      type: 'first_party',
      name: `old_${i}`,
      host: BIG_HOSTS[0],
      status: 'inactive',
    })),
  ];
  return { id: BIG_ZONE, name: 'example.com', plan: 'business', hosts: [...BIG_HOSTS], pageGuard: { enabled: true }, scripts, connections, cookies };
}

/** A running emulator with the demo zones plus the big and the empty zone. */
export interface InsightHarness {
  emulator: StartedEmulator;
  client: ZoneGuardClient;
  /** The demo zone of a plan (free, pro, business, enterprise). */
  demoZone(plan: string): string;
  /** Connection flags for the CLI. */
  flags(): string[];
}

/** Starts an emulator (demo seed + the big and empty zones) for one test file; reseeds before every test. */
export function useInsightEmulator(): InsightHarness {
  const emulator = emulatorForFile({ seed: 'demo' }, async (started) => {
    await started.admin.reset();
    await started.admin.seedZone(bigZoneSeed());
    await started.admin.seedZone({ id: EMPTY_ZONE, name: 'empty.example', plan: 'pro', hosts: ['empty.example'] });
  });
  let client: ZoneGuardClient | undefined;
  return {
    get emulator() {
      return emulator();
    },
    get client() {
      client ??= testClient(emulator());
      return client;
    },
    demoZone: (plan) => zoneOfPlan(emulator(), plan),
    flags: () => ['--base-url', emulator().baseUrl, '--api-token', emulator().credentials.apiToken],
  };
}

/** Runs a command in-process with `argv`: its exit code and what it wrote to standard output and standard error. */
export async function ran(run: (argv: readonly string[], io: RunIo) => Promise<number>, argv: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const c = capture();
  const code = await run(argv, c.io);
  return { code, stdout: c.stdout(), stderr: c.stderr() };
}

/** A tiny Fisher-Yates shuffle driven by a seed, so a failing order can be replayed. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i -= 1) {
    state = (state * 1103515245 + 12345) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** An in-memory io for `run(argv, io)`: what the command wrote, and its environment. */
export function capture(env: Record<string, string | undefined> = {}, options: { tty?: boolean } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      stdout: { write: (text: string) => out.push(text), isTTY: options.tty ?? false },
      stderr: { write: (text: string) => err.push(text), isTTY: options.tty ?? false },
      env,
    },
    stdout: () => out.join(''),
    stderr: () => err.join(''),
  };
}
