import { Command, type CommanderError } from 'commander';
import { redactSecrets } from '../../client/credentials';
import { SETTING_SOURCES } from '../../client/settings';
import { EXIT, exitCodeOf, messageOf, oneLine, type CliIo, type RunIo } from './io';
import type { ConnectionOptions } from './client';

/** Thrown by `exit` of an in-process run to unwind to `run`. */
class ExitSignal extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
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
