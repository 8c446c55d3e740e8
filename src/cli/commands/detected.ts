import { Option, type Command } from 'commander';
import { PAGING, type DetectedStatus } from '../../schemas';
import { summarizeByHost, type ClassifiedQuery, type Classification, type HostCount } from '../../insights';
import { jsonText, type CliIo } from './io';
import { parseHosts, parsePositive, parseStatus, zoneCommand, type ZoneOptions } from './options';
import { clientFrom } from './client';
import { progressReporter } from './progress';
import { wireCommand } from './run';
import { renderTable, type Column } from './table';

/** Flags of the scripts, connections and cookies commands. */
export interface DetectedOptions extends ZoneOptions {
  hosts?: string[];
  status?: DetectedStatus[] | 'all';
  malicious?: boolean;
  excludeCdnCgi?: boolean;
  excludeDuplicates?: boolean;
  orderBy?: string;
  direction?: 'asc' | 'desc';
  prioritizeMalicious?: boolean;
  perPage?: number;
  byHost?: boolean;
  json?: boolean;
  quiet?: boolean;
}

/** What one of the three commands lists and how it shows it. */
export interface DetectedCommandSpec<T extends { host: string; classification?: Classification }> {
  name: 'scripts' | 'connections' | 'cookies';
  description: string;
  /** Scripts and connections have a malicious classification; cookies do not. */
  classified: boolean;
  /** What makes one malicious, for --malicious's help: only scripts have an integrity score. */
  maliciousWhen?: string;
  /** Scripts only: --exclude-duplicates. */
  duplicates?: boolean;
  /** The list: every flag is passed, those of another list's are left unset (its options are not offered). */
  load(query: ClassifiedQuery<'scripts'>): Promise<T[]>;
  columns: Column[];
  row(item: T): string[];
  /** Example lines for the help. */
  examples: string[];
}

/** A boolean cell: yes, no, or - when the service did not say. */
export const yesNo = (value: boolean | undefined) => (value === undefined ? '-' : value ? 'yes' : 'no');

/** The verdict cell: `yes (score, domain)` or `no`; `-` when the service sent no analysis at all. */
export function verdictCell(classification: Classification, analysed: boolean): string {
  if (classification.malicious) return `yes (${classification.reasons.join(', ')})`;
  return analysed ? 'no' : '-';
}

/**
 * The row of a classified script or connection: status, host, the cells of its own (a script's integrity score),
 * the verdict (`analysed`: whether the service sent any analysis), the categories and the URL.
 */
export function classifiedRow(item: { status: string; host: string; url: string; classification: Classification }, own: string[], analysed: boolean): string[] {
  return [item.status, item.host, ...own, verdictCell(item.classification, analysed), item.classification.categories.join(', ') || '-', item.url];
}

function plural(count: number, word: string): string {
  return `${count} ${count === 1 ? word.replace(/s$/, '') : word}`;
}

/** The footer line under a table of items. */
export function footer(kind: string, items: readonly { host: string; classification?: Classification }[], classified: boolean): string {
  const hosts = new Set(items.map((i) => i.host)).size;
  const malicious = items.filter((i) => i.classification?.malicious).length;
  return `${plural(items.length, kind)} on ${plural(hosts, 'hosts')}${classified ? `, ${malicious} malicious` : ''}\n`;
}

function hostTable(kind: string, counts: HostCount[], classified: boolean): string {
  const columns: Column[] = [{ header: 'HOST' }, { header: kind.toUpperCase(), align: 'right' }];
  if (classified) columns.push({ header: 'MALICIOUS', align: 'right' });
  const rows = counts.map((c) => [c.host, String(c.count), ...(classified ? [String(c.malicious)] : [])]);
  const total = counts.reduce((n, c) => n + c.count, 0);
  const malicious = counts.reduce((n, c) => n + c.malicious, 0);
  rows.push(['total', String(total), ...(classified ? [String(malicious)] : [])]);
  return renderTable(columns, rows);
}

/** The list commands' own options, in the order their help shows them; some only where the service takes them. */
function listOptions(spec: Pick<DetectedCommandSpec<never>, 'classified' | 'maliciousWhen' | 'duplicates'>): Option[] {
  const classified = (option: Option) => (spec.classified ? [option] : []);
  return [
    new Option('--hosts <hosts>', 'only these hosts, comma separated; a leading or trailing * is a wildcard').argParser(parseHosts),
    new Option('--status <statuses>', 'active, infrequent, inactive (comma separated) or all (default: active)').argParser(parseStatus),
    ...classified(new Option('--malicious', `only the malicious ones (${spec.maliciousWhen ?? 'domain or URL reported'})`)),
    // The service takes exclude_cdn_cgi on the scripts and connections lists only, the two it classifies; it refuses it on cookies.
    ...classified(new Option('--exclude-cdn-cgi', 'leave out URLs under /cdn-cgi/')),
    ...(spec.duplicates ? [new Option('--exclude-duplicates', 'one entry per script URL')] : []),
    new Option('--order-by <field>', 'sort on the service, e.g. first_seen_at or last_seen_at'),
    new Option('--direction <direction>', 'sort direction on the service').choices(['asc', 'desc']),
    ...classified(new Option('--prioritize-malicious', 'ask the service to list malicious ones first')),
    new Option('--per-page <n>', `page size of the walk (1-${PAGING.maxPerPage}, default ${PAGING.maxPerPage})`).argParser(parsePositive(PAGING.maxPerPage)),
    new Option('--by-host', 'counts per host instead of the items'),
    new Option('--json', 'JSON on stdout instead of a table'),
    new Option('-q, --quiet', 'no progress on stderr'),
  ];
}

/** Builds one of the three list commands. */
export function detectedCommand<T extends { host: string; classification?: Classification }>(spec: DetectedCommandSpec<T>, io: CliIo): Command {
  const own = {
    name: spec.name,
    description: spec.description,
    options: () => listOptions(spec),
    help: `\nExamples:\n${spec.examples.map((e) => `  $ ${e}`).join('\n')}`,
  };
  const command = zoneCommand(io, own, async (options: DetectedOptions) => {
    const { client } = clientFrom(options, io.env);
    const progress = progressReporter(io, options.quiet);
    let items: T[];
    try {
      items = await spec.load({
        client,
        zoneId: options.zone,
        hosts: options.hosts,
        status: options.status,
        maliciousOnly: options.malicious,
        excludeCdnCgi: options.excludeCdnCgi,
        excludeDuplicates: options.excludeDuplicates,
        orderBy: options.orderBy,
        direction: options.direction,
        prioritizeMalicious: options.prioritizeMalicious,
        perPage: options.perPage,
        onProgress: progress.onProgress,
      });
    } finally {
      progress.done();
    }
    if (options.byHost) {
      const counts = summarizeByHost(items);
      io.stdout.write(options.json ? jsonText(counts) : hostTable(spec.name, counts, spec.classified));
      return;
    }
    if (options.json) {
      io.stdout.write(jsonText(items));
      return;
    }
    if (items.length > 0) io.stdout.write(renderTable(spec.columns, items.map(spec.row)));
    io.stdout.write(footer(spec.name, items, spec.classified));
  });
  return wireCommand(command, io);
}
