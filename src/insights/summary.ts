import type { Connection, Cookie, Script } from '../schemas';
import { compareText, type Classification } from './classification';
import { listConnections, listCookies, listScripts, type Classified, type DetectedQuery } from './detected';

/** Counts of one kind of item on one host. */
export interface HostCount {
  host: string;
  count: number;
  /** Items classed malicious (always 0 for cookies, which carry no classification). */
  malicious: number;
}

/** Counts per host, sorted by host; items without a classification count as not malicious. */
export function summarizeByHost(items: readonly { host: string; classification?: Classification }[]): HostCount[] {
  const byHost = new Map<string, HostCount>();
  for (const item of items) {
    const entry = byHost.get(item.host) ?? { host: item.host, count: 0, malicious: 0 };
    entry.count += 1;
    if (item.classification?.malicious) entry.malicious += 1;
    byHost.set(item.host, entry);
  }
  return [...byHost.values()].sort((a, b) => compareText(a.host, b.host));
}

/** One host of a zone: its scripts, connections and cookies, with the malicious counts. */
export interface HostSummary {
  host: string;
  scripts: number;
  maliciousScripts: number;
  connections: number;
  maliciousConnections: number;
  cookies: number;
}

/** The three lists of a zone side by side, per host, sorted by host, with a total row's figures. */
export interface ZoneSummary {
  hosts: HostSummary[];
  totals: Omit<HostSummary, 'host'>;
}

/** Puts the per-kind counts of already loaded lists together. Pure. */
export function combineSummaries(lists: {
  scripts: readonly Classified<Script>[];
  connections: readonly Classified<Connection>[];
  cookies: readonly Cookie[];
}): ZoneSummary {
  const rows = new Map<string, HostSummary>();
  const row = (host: string) => {
    let entry = rows.get(host);
    if (!entry) {
      entry = { host, scripts: 0, maliciousScripts: 0, connections: 0, maliciousConnections: 0, cookies: 0 };
      rows.set(host, entry);
    }
    return entry;
  };
  for (const { host, count, malicious } of summarizeByHost(lists.scripts)) Object.assign(row(host), { scripts: count, maliciousScripts: malicious });
  for (const { host, count, malicious } of summarizeByHost(lists.connections)) {
    Object.assign(row(host), { connections: count, maliciousConnections: malicious });
  }
  for (const { host, count } of summarizeByHost(lists.cookies)) row(host).cookies = count;
  const hosts = [...rows.values()].sort((a, b) => compareText(a.host, b.host));
  const totals = { scripts: 0, maliciousScripts: 0, connections: 0, maliciousConnections: 0, cookies: 0 };
  for (const h of hosts) {
    totals.scripts += h.scripts;
    totals.maliciousScripts += h.maliciousScripts;
    totals.connections += h.connections;
    totals.maliciousConnections += h.maliciousConnections;
    totals.cookies += h.cookies;
  }
  return { hosts, totals };
}

/** Loads the zone's scripts, connections and cookies (with the same filters) and counts them per host. */
export async function summarizeZone(query: DetectedQuery): Promise<ZoneSummary> {
  // One list after the other: the three walks share the client's rate budget anyway, and progress reads in order.
  const scripts = await listScripts(query);
  const connections = await listConnections(query);
  const cookies = await listCookies(query);
  return combineSummaries({ scripts, connections, cookies });
}
