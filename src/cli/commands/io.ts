import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { formatZodIssues, readableIssue } from '../../schemas';
// What a command touches outside itself (its outputs, environment and exit), the exit codes, and the error and
// text shapes every command writes.

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

/** JSON for stdout: two-space indent and a final newline. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** `text` parsed as JSON, or undefined when it is no JSON. */
export function tryJson(text: string): { json: unknown } | undefined {
  try {
    return { json: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** `json` as `schema` checks it; otherwise a usage error: `notShape` (what the input is not), then each problem. */
export function checkedInput<T>(schema: z.ZodType<T>, json: unknown, notShape: string): T {
  const parsed = schema.safeParse(json, { error: readableIssue });
  if (!parsed.success) throw new UsageError(`${notShape}: ${formatZodIssues(parsed.error).join('; ')}`);
  return parsed.data;
}

/** The text of `file` (`-`: standard input); a file that cannot be read is a usage error naming it and why. */
export function readInput(file: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}
