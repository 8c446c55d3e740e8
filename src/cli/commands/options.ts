import { Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_BASE_URL, SETTING_SOURCES } from '../../client/settings';
import { DetectedStatusSchema, ZoneIdSchema, type DetectedStatus } from '../../schemas';
import type { CliIo } from './io';
import { actionOf } from './run';
import type { ConnectionOptions } from './client';

/** Flags every command over one zone takes. */
export interface ZoneOptions extends ConnectionOptions {
  zone: string;
}

/** What a command over one zone declares of its own. */
export interface ZoneCommandSpec {
  name: string;
  /** The one line `zoneguard --help` shows. */
  description: string;
  /** The command's own options, which the help lists after --zone and before the connection flags; made afresh for
   * each command built, since commander's options are mutable objects. */
  options: () => readonly Option[];
  /** Notes and examples, shown after the options. */
  help: string;
}

/**
 * A command over one zone, built the one way every such command is: its description, the required --zone, its own
 * options, then --base-url and the credential flags and its help (`addConnectionOptions`), and `body` as its action
 * (`actionOf`: a failure is one line on stderr and an exit code).
 */
export function zoneCommand<O extends ZoneOptions>(io: CliIo, spec: ZoneCommandSpec, body: (options: O) => Promise<void>): Command {
  const command = new Command(spec.name).description(spec.description).addOption(zoneOption());
  for (const option of spec.options()) command.addOption(option);
  return addConnectionOptions(command, spec.help).action(actionOf<O>(io, body));
}

/**
 * Adds --base-url and the credential flags after the command's own options, and after them in the help the
 * command's `help` (notes, examples), then where credentials come from and the exit codes.
 */
function addConnectionOptions(command: Command, help: string): Command {
  return command
    .option('--base-url <url>', `API base URL (env ${SETTING_SOURCES.baseUrl.env}; default ${DEFAULT_BASE_URL})`)
    .option('--api-token <token>', `API token (env ${SETTING_SOURCES.apiToken.env}; the variable keeps it out of the process list)`)
    .option('--api-email <email>', `account email, with --api-key (env ${SETTING_SOURCES.apiEmail.env})`)
    .option('--api-key <key>', `global API key, with --api-email (env ${SETTING_SOURCES.apiKey.env})`)
    .addHelpText('after', `${help}\n${HELP_FOOTER}`);
}

/** `--stack-export`: the stacks' exports (`pulumi stack export`), which tell who holds each object of the zone (`readExports`). */
export function stackExportOption(why = ''): Option {
  return new Option('--stack-export <file...>', `what pulumi stack export wrote, one file per stack on this zone (- for standard input)${why}`);
}

/** `--json`: the result as JSON on stdout (`jsonText`) instead of the tables. */
export function jsonOption(what: string): Option {
  return new Option('--json', `JSON on stdout instead of tables (${what})`);
}

/** The `--zone` option, required and checked. */
function zoneOption(): Option {
  return new Option('--zone <id>', 'zone id (32 hexadecimal characters)').makeOptionMandatory().argParser(parseZone);
}

/** Footer of every command's help: where credentials come from, and the exit codes. */
const HELP_FOOTER = `
Credentials: --api-token, or --api-email with --api-key; otherwise the environment: ${SETTING_SOURCES.apiToken.env},
or ${SETTING_SOURCES.apiEmail.env} with ${SETTING_SOURCES.apiKey.env}. Base URL: --base-url, else ${SETTING_SOURCES.baseUrl.env},
else ${DEFAULT_BASE_URL} (the local emulator).

Exit codes: 0 ok; 1 service or API error (refused credentials, unknown zone, network); 2 usage error (options,
missing credentials). Errors are one line on stderr.`;

/** Commander value parser for --zone. */
export function parseZone(value: string): string {
  const result = ZoneIdSchema.safeParse(value);
  if (!result.success) throw new InvalidArgumentError('must be a zone id: 32 lowercase hexadecimal characters');
  return value;
}

/** Commander value parser for a comma list of hosts (`*` wildcards at either end allowed). */
export function parseHosts(value: string): string[] {
  const hosts = value.split(',').map((h) => h.trim()).filter((h) => h !== '');
  if (hosts.length === 0) throw new InvalidArgumentError('must name at least one host');
  for (const host of hosts) {
    if (!/^\*?[A-Za-z0-9.-]+\*?$/.test(host) || host === '*') {
      throw new InvalidArgumentError(`${JSON.stringify(host)} is not a host name (a leading or trailing * is allowed)`);
    }
  }
  return hosts;
}

/** Commander value parser for --status: a comma list of active, infrequent, inactive, or all. */
export function parseStatus(value: string): DetectedStatus[] | 'all' {
  const parts = value.split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '');
  if (parts.length === 1 && parts[0] === 'all') return 'all';
  const known = DetectedStatusSchema.options;
  const statuses: DetectedStatus[] = [];
  for (const part of parts) {
    if (!(known as readonly string[]).includes(part)) {
      throw new InvalidArgumentError(`${JSON.stringify(part)} is not a status; use ${known.join(', ')} (comma separated) or all`);
    }
    if (!statuses.includes(part as DetectedStatus)) statuses.push(part as DetectedStatus);
  }
  if (statuses.length === 0) throw new InvalidArgumentError(`must name a status: ${known.join(', ')} or all`);
  return statuses;
}

/** Commander value parser for a positive whole number. */
export function parsePositive(max: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) {
      throw new InvalidArgumentError(`must be a whole number from 1 to ${max}`);
    }
    return Number(value);
  };
}
