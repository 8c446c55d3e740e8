#!/usr/bin/env node
import '../node-version'; // first: an unsupported Node fails here, saying what to install
import { Command, InvalidArgumentError } from 'commander';
import { startEmulator, type SeedFile, type StartedEmulator } from '../emulator';
import { SeedFileJsonSchema } from '../emulator/seed';
import { readCheckedJson } from '../emulator/state';
import { insightCommands } from './commands';
import { processIo, type CliIo } from './commands/io';
import { wireCommand } from './commands/run';

/** Default port of `zoneguard emulator`. */
export const DEFAULT_EMULATOR_PORT = 8787;

function portOption(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError('must be a port number, 0-65535 (0 picks a free one)');
  return port;
}

/** What `zoneguard emulator` prints once it listens: everything a user needs to point a stack at it. */
export function describeEmulator(emulator: StartedEmulator, statePath: string | undefined, zoneTokens: Record<string, string>): string {
  const { credentials } = emulator;
  const lines = [
    'zoneguard emulator is serving the service API',
    `  base URL   ${emulator.baseUrl}`,
    `  admin URL  ${emulator.adminUrl}`,
    ...(emulator.adminToken !== undefined
      ? [`  admin token ${emulator.adminToken}   (Authorization: Bearer <token> on the admin API)`]
      : []),
    `  API token  ${credentials.apiToken}   (Authorization: Bearer <token>)`,
    `  API email  ${credentials.apiEmail}`,
    `  API key    ${credentials.apiKey}   (X-Auth-Email + X-Auth-Key)`,
    `  state      ${statePath ?? 'in memory (use --state FILE to keep it)'}`,
    'zones',
    ...emulator.zones.map(
      (zone) => `  ${zone.id}  ${zone.plan.padEnd(10)}  ${zone.name.padEnd(20)}  zone token ${zoneTokens[zone.id] ?? ''}`,
    ),
    'Press Ctrl+C to stop.',
  ];
  if (emulator.adminToken !== undefined) {
    lines.unshift(
      'warning: serving on a non-loopback address: other machines can reach the service API and its credentials;',
      '         the admin API requires the admin token printed below. Use --host 127.0.0.1 unless you need this.',
    );
  }
  return lines.join('\n');
}

/** Reads and checks a seed file; its problems become one line, `path: message` each, separated by `; `. */
export function readSeedFile(path: string): SeedFile {
  return readCheckedJson('seed file', path, SeedFileJsonSchema);
}

async function runEmulator(options: { port: number; host: string; seed?: string; state?: string }): Promise<void> {
  const seed = options.seed === undefined ? undefined : readSeedFile(options.seed);
  const emulator = await startEmulator({
    port: options.port,
    host: options.host,
    ...(seed !== undefined ? { seed } : {}),
    ...(options.state !== undefined ? { statePath: options.state } : {}),
  });
  console.log(describeEmulator(emulator, options.state, emulator.credentials.zoneTokens));
  const stop = (signal: string) => {
    console.log(`\n${signal}: stopping the emulator`);
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

/**
 * The `zoneguard` command line. Wired like every sub-command: a usage error at any level (an unknown command, a bad
 * --port) is one line on stderr and exit 2, help and version exit 0.
 */
export function buildProgram(io: CliIo = processIo()): Command {
  const program = new Command('zoneguard').description('Page security, firewall rules and the WAF migration as code, with Pulumi');
  program
    .command('emulator')
    .description('serve an emulator of the service API on loopback, seeded with a demo zone per plan')
    .option('--port <n>', 'port to listen on (0 picks a free one)', portOption, DEFAULT_EMULATOR_PORT)
    .option('--host <address>', 'address to listen on; off loopback the admin API requires a token it prints', '127.0.0.1')
    .option('--seed <file>', 'JSON seed file (credentials and zones) instead of the demo')
    .option('--state <file>', 'state file: loaded at start if present, written after every change')
    .action(runEmulator);
  for (const command of insightCommands(io)) program.addCommand(command);
  return wireCommand(program, io);
}

if (require.main === module) {
  // Piped into `head`, the reader may close before we are done: that ends the command, quietly.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  buildProgram()
    .parseAsync(process.argv)
    .catch((error: unknown) => {
      console.error(`zoneguard: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    });
}
