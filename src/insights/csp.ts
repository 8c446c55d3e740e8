import type { ZoneGuardClient } from '../client';
import type { DetectedStatus, Script } from '../schemas';
import { classify, compareText, type MaliciousReason } from './classification';
import { walkPages, type LoadProgress } from './detected';

/** Why a script was left out of the allow-list: a malicious signal, or a URL that names no origin. */
export type ExclusionReason = MaliciousReason | 'invalid-url';

/** A script URL the value does not allow, and why. */
export interface ExcludedScript {
  url: string;
  reasons: ExclusionReason[];
  /** Merged malicious categories, sorted. */
  categories: string[];
  /** Hosts the script was detected on, sorted. */
  hosts: string[];
  /**
   * True when the script's origin is allowed anyway, because a non-malicious script comes from the same origin:
   * a source list allows origins, so the value alone does not keep this script out.
   */
  originAllowed: boolean;
}

/** A `script-src` value built from observed scripts, with what it left out. */
export interface ObservedCsp {
  /** `script-src 'self' <origins…>`: ready to be the `value` of a CspPolicy. */
  value: string;
  /** The allowed origins besides 'self', sorted (scheme://host[:port]). */
  origins: string[];
  /** Malicious (or unusable) scripts, sorted by URL. */
  excluded: ExcludedScript[];
  /** Scripts that were considered, before exclusions. */
  scriptsConsidered: number;
}

/** Options of the pure builder. */
export interface CspBuildOptions {
  /** The directive the value declares; default `script-src`. */
  directive?: 'script-src' | 'script-src-elem';
}

/**
 * The origin of a script URL in its CSP host-source form, or undefined for a URL that has none (data:, blob:,
 * relative). URL parsing lowercases the host and drops a default port, so equal origins compare equal.
 */
export function scriptOrigin(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
    return parsed.origin;
  } catch {
    return undefined;
  }
}

function isSelf(url: string, host: string): boolean {
  try {
    return new URL(url).host === host.toLowerCase();
  } catch {
    return false;
  }
}

/**
 * The allow-list of the given scripts: 'self' first (scripts served from the host they were detected on need
 * nothing more), then every other origin of a non-malicious script, sorted and without duplicates. Pure and
 * independent of the scripts' order, so the same observations always give the same text.
 */
export function buildScriptSrc(scripts: readonly Script[], options: CspBuildOptions = {}): ObservedCsp {
  const directive = options.directive ?? 'script-src';
  const origins = new Set<string>();
  const excluded = new Map<string, { reasons: Set<ExclusionReason>; categories: Set<string>; hosts: Set<string> }>();
  const exclude = (script: Script, reasons: ExclusionReason[], categories: string[]) => {
    const entry = excluded.get(script.url) ?? { reasons: new Set(), categories: new Set(), hosts: new Set() };
    reasons.forEach((r) => entry.reasons.add(r));
    categories.forEach((c) => entry.categories.add(c));
    entry.hosts.add(script.host);
    excluded.set(script.url, entry);
  };
  for (const script of scripts) {
    const { malicious, reasons, categories } = classify(script);
    if (malicious) {
      exclude(script, reasons, categories);
      continue;
    }
    const origin = scriptOrigin(script.url);
    if (origin === undefined) {
      exclude(script, ['invalid-url'], []);
      continue;
    }
    if (!isSelf(script.url, script.host)) origins.add(origin);
  }
  const sortedOrigins = [...origins].sort(compareText);
  const reasonOrder: ExclusionReason[] = ['score', 'domain', 'url', 'invalid-url'];
  return {
    value: [directive, "'self'", ...sortedOrigins].join(' '),
    origins: sortedOrigins,
    excluded: [...excluded.entries()]
      .sort(([a], [b]) => compareText(a, b))
      .map(([url, entry]) => {
        const origin = scriptOrigin(url);
        return {
          url,
          reasons: reasonOrder.filter((r) => entry.reasons.has(r)),
          categories: [...entry.categories].sort(compareText),
          hosts: [...entry.hosts].sort(compareText),
          originAllowed: origin !== undefined && (origins.has(origin) || [...entry.hosts].some((h) => isSelf(url, h))),
        };
      }),
    scriptsConsidered: scripts.length,
  };
}

/** Options of {@link cspFromObservedScripts}. */
export interface ObservedCspOptions extends CspBuildOptions {
  client: ZoneGuardClient;
  zoneId: string;
  /** Only scripts detected on these hosts (one or a comma list; `*` wildcards at either end). Default: every host. */
  hosts?: string | string[];
  /** Also allow scripts the service sees only now and then (status infrequent). Default: active scripts only. */
  includeInfrequent?: boolean;
  /** Leave out scripts under /cdn-cgi/ (served by the service itself). Default: false. */
  excludeCdnCgi?: boolean;
  /** Called after each page of scripts. */
  onProgress?: (progress: LoadProgress) => void;
}

/**
 * A `script-src` value allowing the origins of the zone's observed, non-malicious scripts, with the malicious ones
 * it left out returned beside it. Inactive scripts are never allowed.
 */
export async function cspFromObservedScripts(options: ObservedCspOptions): Promise<ObservedCsp> {
  const status: DetectedStatus[] = options.includeInfrequent ? ['active', 'infrequent'] : ['active'];
  const scripts = await walkPages(
    'scripts',
    options.client.scripts.list({
      zoneId: options.zoneId,
      hosts: options.hosts,
      status,
      ...(options.excludeCdnCgi ? { excludeCdnCgi: true } : {}),
    }),
    options.onProgress,
  );
  return buildScriptSrc(scripts, options);
}
