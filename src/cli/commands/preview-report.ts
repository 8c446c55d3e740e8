import * as fs from 'node:fs';
import { Command } from 'commander';
import { LandingRecordSchema, sealText, type LandingRecord } from '../../seal/format';
import { SealMakingError, sealOfPreview } from '../../seal/make';
import { EngineEventSchema, PreviewDigestSchema, digestOfEvents, renderPreviewReport, type PreviewDigest } from '../../insights/preview-report';
import { UsageError, checkedInput, processIo, readInput, tryJson, type CliIo } from './io';
import { actionOf } from './run';

/**
 * Reads what `pulumi preview --json` wrote (`-`: standard input) and checks its shape: one JSON document (the CLI's
 * digest), or one engine event a line (with PULUMI_ENABLE_STREAMING_JSON_PREVIEW=true).
 */
function readDigest(file: string): PreviewDigest {
  const text = readInput(file);
  const parsed = tryJson(text);
  if (!parsed) return digestOfEvents(text.split('\n').filter((line) => line.trim() !== '').map((line, index) => readEvent(file, line, index + 1)));
  return checkedInput(PreviewDigestSchema, parsed.json, `${file} is not what pulumi preview --json writes`);
}

function readEvent(file: string, line: string, number: number) {
  const parsed = tryJson(line);
  if (!parsed) throw new UsageError(`${file} is not JSON (line ${number}): pass what pulumi preview --json writes`);
  return checkedInput(EngineEventSchema, parsed.json, `${file}, line ${number}, is not an engine event`);
}

interface Options {
  stack?: string;
  seal?: string;
  landings?: string;
}

/** The landings a sealed preview's providers recorded, one JSON line each (none when the file is missing: no rule was created). */
function readLandings(file: string | undefined): LandingRecord[] {
  if (file === undefined || !fs.existsSync(file)) return [];
  return readInput(file)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      const parsed = tryJson(line);
      if (!parsed) throw new UsageError(`${file} is not JSON (line ${index + 1}): pass the file ZONEGUARD_SEAL_RECORD named during the preview`);
      return checkedInput(LandingRecordSchema, parsed.json, `${file}, line ${index + 1}, is not what a sealed preview records`);
    });
}

/** Writes the seal of the preview, or fails in one line saying why it cannot be sealed (the report is printed first). */
function writeSeal(digest: PreviewDigest, file: string, landings: string | undefined): void {
  try {
    fs.writeFileSync(file, sealText(sealOfPreview(digest, readLandings(landings), new Date().toISOString())));
  } catch (error) {
    if (error instanceof SealMakingError) throw new UsageError(`no seal written: ${error.message}`);
    throw error;
  }
}

/**
 * `zoneguard preview-report`: what `pulumi preview --json` printed, as Markdown for a reviewer (a CI step summary or
 * a pull request comment). Reads a file, sends nothing.
 */
export function previewReportCommand(io: CliIo = processIo()): Command {
  const command = new Command('preview-report')
    .description(
      'turn what pulumi preview --json printed into a Markdown report: per zone what up would change, CSP sources gained or lost, firewall and WAF rule changes, a pending WAF migration plan, failures',
    )
    .argument(
      '[file]',
      'what pulumi preview --json wrote, best with PULUMI_ENABLE_STREAMING_JSON_PREVIEW=true (stack outputs included); - or none: standard input',
      '-',
    )
    .option('--stack <name>', 'the stack name for the heading (default: read from the preview)')
    .option('--seal <file>', 'also write the seal of the preview to this file, for the up that keeps it (ZONEGUARD_SEAL; the preview must run with --refresh)')
    .option('--landings <file>', "what the sealed preview's providers recorded (the file ZONEGUARD_SEAL_RECORD named during the preview)")
    .addHelpText(
      'after',
      `
Reads only the file. In a CI job:

  $ PULUMI_ENABLE_STREAMING_JSON_PREVIEW=true pulumi preview --stack ci --json > preview.json
  $ zoneguard preview-report preview.json >> "$GITHUB_STEP_SUMMARY"

Sealed (docs/sealed-previews.md):

  $ ZONEGUARD_SEAL_RECORD=landings.jsonl PULUMI_ENABLE_STREAMING_JSON_PREVIEW=true pulumi preview --refresh --json > preview.json
  $ zoneguard preview-report --seal seal.json --landings landings.jsonl preview.json
  $ ZONEGUARD_SEAL=seal.json pulumi up`,
    );
  // Commander passes the argument first; actionOf takes the options and the command.
  const report = (file: string) =>
    actionOf<Options>(io, async (options) => {
      const digest = readDigest(file);
      io.stdout.write(renderPreviewReport(digest, options.stack !== undefined ? { stack: options.stack } : {}));
      if (options.seal !== undefined) writeSeal(digest, options.seal, options.landings);
    });
  command.action((file: string, options: Options, cmd: Command) => report(file)(options, cmd));
  return command;
}
