import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ZoneGuardClient } from '../../client';
import { redactSecrets, secretValuesOf } from '../../client/credentials';
import type { LoadProgress } from '../../insights';
import { DEFAULT_BASE_URL, SettingsError, resolveSettings, SETTING_SOURCES, type NameSetting } from '../../client/settings';
import { DetectedStatusSchema, ZoneIdSchema, type DetectedStatus } from '../../schemas';

/** The exit codes scripts can rely on. */
export const EXIT = {
  /** The command did what it was asked. */
  ok: 0,
  /** The service or the network failed: an API error, a refused credential, a zone the service does not know. */
  service: 1,
  /** The command line is wrong: an unknown option, a missing or malformed value, missing credentials. */
  usage: 2,
} as const;

/** Where a command writes. `isTTY` decides whether progress redraws one line or prints one line per page. */
export interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** Everything a command touches outside itself, so tests run it in-process. */
export interface CliIo {
  stdout: Output;
  stderr: Output;
  env: Record<string, string | undefined>;
  /** Records the command's outcome (the process exit code, or the result of `run`). */
  setExitCode(code: number): void;
  /** Ends the command at once (commander's help, version and usage errors). */
  exit(code: number): never;
}

/** What `run(argv, io)` needs: the two outputs and the environment (default: none). */
export interface RunIo {
  stdout: Output;
  stderr: Output;
  env?: Record<string, string | undefined>;
}

/** The process's own streams, environment and exit. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    setExitCode: (code) => {
      process.exitCode = code;
    },
    exit: (code) => process.exit(code),
  };
}

/** A wrong command line: reported in one line, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Thrown by `exit` of an in-process run to unwind to `run`. */
class ExitSignal extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** Flags every command that talks to the service takes. */
export interface ConnectionOptions {
  baseUrl?: string;
  apiToken?: string;
  apiEmail?: string;
  apiKey?: string;
}

/** Adds --base-url and the credential flags. */
export function addConnectionOptions(command: Command): Command {
  return command
    .option('--base-url <url>', `API base URL (env ${SETTING_SOURCES.baseUrl.env}; default ${DEFAULT_BASE_URL})`)
    .option('--api-token <token>', `API token (env ${SETTING_SOURCES.apiToken.env}; the variable keeps it out of the process list)`)
    .option('--api-email <email>', `account email, with --api-key (env ${SETTING_SOURCES.apiEmail.env})`)
    .option('--api-key <key>', `global API key, with --api-email (env ${SETTING_SOURCES.apiKey.env})`);
}

/** The `--zone` option, required and checked. */
export function zoneOption(): Option {
  return new Option('--zone <id>', 'zone id (32 hexadecimal characters)').makeOptionMandatory().argParser(parseZone);
}

/** Footer of every command's help: where credentials come from, and the exit codes. */
export const HELP_FOOTER = `
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

/**
 * The client, from the flags first and the providers' environment variables second (resolveSettings, the same
 * rules as the providers). Credential flags are taken as a set: any of them given, the environment's credentials
 * are ignored, so a flag never mixes with a variable into a half-pair. ZONEGUARD_RATE_BUDGET and
 * ZONEGUARD_RATE_BUDGET_STORE apply as they do to the providers.
 */
export function clientFrom(options: ConnectionOptions, env: Record<string, string | undefined>): { client: ZoneGuardClient; secrets: string[] } {
  const flags: Record<string, string | undefined> = {
    [SETTING_SOURCES.baseUrl.config]: options.baseUrl,
    [SETTING_SOURCES.apiToken.config]: options.apiToken,
    [SETTING_SOURCES.apiEmail.config]: options.apiEmail,
    [SETTING_SOURCES.apiKey.config]: options.apiKey,
  };
  const anyCredentialFlag = options.apiToken !== undefined || options.apiEmail !== undefined || options.apiKey !== undefined;
  const kept = [SETTING_SOURCES.baseUrl.env, SETTING_SOURCES.rateBudget.env, SETTING_SOURCES.rateBudgetStore.env];
  const environment = anyCredentialFlag ? Object.fromEntries(kept.map((name) => [name, env[name]])) : env;
  let settings;
  try {
    settings = resolveSettings((key) => flags[key], environment, nameForCli);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    // A malformed value (base URL, rate budget, a credential a header cannot carry) says what is wrong with it.
    if (error.setting) throw new UsageError(error.message.replace(/^zoneguard: /, ''));
    const half = (options.apiEmail ?? environment[SETTING_SOURCES.apiEmail.env]) || (options.apiKey ?? environment[SETTING_SOURCES.apiKey.env]);
    throw new UsageError(
      half
        ? `the key form of credentials needs both --api-email and --api-key (or ${SETTING_SOURCES.apiEmail.env} and ${SETTING_SOURCES.apiKey.env})`
        : `no credentials: pass --api-token or set ${SETTING_SOURCES.apiToken.env} (or --api-email and --api-key, ` +
            `or ${SETTING_SOURCES.apiEmail.env} and ${SETTING_SOURCES.apiKey.env})`,
    );
  }
  const secrets = secretValuesOf(settings.credentials);
  return { client: new ZoneGuardClient(settings), secrets };
}

/** The CLI's name of a setting: its flag, and the variable (`--base-url (or ZONEGUARD_BASE_URL)`); the rate budget has no flag. */
const nameForCli: NameSetting = (source) => {
  const flags: Record<string, string | undefined> = {
    [SETTING_SOURCES.apiToken.config]: '--api-token',
    [SETTING_SOURCES.apiEmail.config]: '--api-email',
    [SETTING_SOURCES.apiKey.config]: '--api-key',
    [SETTING_SOURCES.baseUrl.config]: '--base-url',
  };
  const flag = flags[source.config];
  return flag ? `${flag} (or ${source.env})` : source.env;
};

/** One line: line breaks and runs of spaces folded. */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/** The exit code of an error: usage errors 2, everything else (service, network, unexpected) 1. */
export function exitCodeOf(error: unknown): number {
  return error instanceof UsageError ? EXIT.usage : EXIT.service;
}

/** The one-line message of an error (the client's messages already name the method, path, status and codes). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Makes a command (and its sub-commands) write through `io` and end through `io.exit`: help and version exit 0,
 * every commander error (unknown option, missing value, bad argument) exits 2 after one line on stderr. A value
 * written as `--flag=value` is masked in the message: a mistyped `--api-tokn=…` must not print the token.
 */
export function wireCommand(command: Command, io: CliIo): Command {
  const path = () => commandPath(command);
  command
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: (text, write) => write(`${path()}: ${oneLine(maskArguments(text))}\n`),
    })
    .exitOverride((error: CommanderError) => {
      const ok = error.code === 'commander.helpDisplayed' || error.code === 'commander.version';
      io.exit(ok ? EXIT.ok : EXIT.usage);
    });
  for (const sub of command.commands) wireCommand(sub, io);
  return command;
}

/**
 * Commander's message without the values it would echo: a mistyped `--api-tokn=…` keeps its flag, and the extra
 * arguments of "too many arguments" are counted, not shown, since one may be a key whose `--api-key` was forgotten.
 */
export function maskArguments(text: string): string {
  return text
    .replace(/'(--?[^'=\s]+)=[^']*'/g, "'$1=…'")
    .replace(/(Expected \d+ arguments? but got \d+): .*?\.?$/m, '$1 (not shown: one may be a credential whose flag is missing).');
}

/** `zoneguard migration plan` for a nested command. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  if (names[0] !== 'zoneguard') names.unshift('zoneguard');
  return names.join(' ');
}

/**
 * The action of a command: runs `body`, writes a failure as one line on stderr (credentials masked) and records
 * the exit code.
 */
export function actionOf<O extends object>(
  io: CliIo,
  body: (options: O, command: Command) => Promise<void>,
): (options: O, command: Command) => Promise<void> {
  return async (options, command) => {
    const secrets = [options as ConnectionOptions, io.env].flatMap((source) => {
      const s = source as Record<string, string | undefined>;
      return [s.apiToken, s.apiKey, s[SETTING_SOURCES.apiToken.env], s[SETTING_SOURCES.apiKey.env]].filter((v): v is string => !!v);
    });
    try {
      await body(options, command);
      io.setExitCode(EXIT.ok);
    } catch (error) {
      if (error instanceof ExitSignal) throw error;
      // A last guard: the client masks what reaches its errors, this masks every other error line too.
      io.stderr.write(`${commandPath(command)}: error: ${redactSecrets(oneLine(messageOf(error)), secrets)}\n`);
      io.setExitCode(exitCodeOf(error));
    }
  };
}

/**
 * Runs one command in-process: `argv` are the words after the command's name. Answers the exit code; nothing
 * touches the process (no exit, no process streams).
 */
export async function runCommand(make: (io: CliIo) => Command, argv: readonly string[], runIo: RunIo): Promise<number> {
  let code: number = EXIT.ok;
  const io: CliIo = {
    stdout: runIo.stdout,
    stderr: runIo.stderr,
    env: runIo.env ?? {},
    setExitCode: (c) => {
      code = c;
    },
    exit: (c) => {
      throw new ExitSignal(c);
    },
  };
  const command = make(io);
  const program = wireCommand(new Command('zoneguard').addCommand(command), io);
  try {
    await program.parseAsync([command.name(), ...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof ExitSignal) return error.code;
    throw error;
  }
  return code;
}

/**
 * Progress of list walks on stderr. On a terminal one line is redrawn and cleared at the end; otherwise one line
 * per page, so logs show how far a slow walk got. `quiet` turns it off.
 */
export function progressReporter(io: CliIo, quiet: boolean | undefined): { onProgress: (p: LoadProgress) => void; done: () => void } {
  if (quiet) return { onProgress: () => undefined, done: () => undefined };
  const tty = io.stderr.isTTY === true;
  let drawn = false;
  return {
    onProgress: (p) => {
      const text = `zoneguard: loading ${p.kind}: page ${p.page}/${p.totalPages} (${p.loaded}/${p.totalCount})`;
      if (tty) {
        io.stderr.write(`\r\x1b[2K${text}`);
        drawn = true;
      } else {
        io.stderr.write(`${text}\n`);
      }
    },
    done: () => {
      if (drawn) io.stderr.write('\r\x1b[2K');
      drawn = false;
    },
  };
}

/** JSON for stdout: two-space indent and a final newline. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
