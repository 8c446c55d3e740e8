import { Command } from 'commander';
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

/**
 * `zoneguard preview-report`: what `pulumi preview --json` printed, as Markdown for a reviewer (a CI step summary or
 * a pull request comment). Reads a file, sends nothing.
 */
export function previewReportCommand(io: CliIo = processIo()): Command {
  const command = new Command('preview-report')
    .description('turn what pulumi preview --json printed into a Markdown report: per zone what up would change, CSP sources gained or lost, firewall and WAF rule changes, a pending WAF migration plan, failures')
    .argument('[file]', 'what pulumi preview --json wrote, best with PULUMI_ENABLE_STREAMING_JSON_PREVIEW=true (stack outputs included); - or none: standard input', '-')
    .option('--stack <name>', 'the stack name for the heading (default: read from the preview)')
    .addHelpText(
      'after',
      `
Reads only the file. In a CI job:

  $ PULUMI_ENABLE_STREAMING_JSON_PREVIEW=true pulumi preview --stack ci --json > preview.json
  $ zoneguard preview-report preview.json >> "$GITHUB_STEP_SUMMARY"`,
    );
  // Commander passes the argument first; actionOf takes the options and the command.
  const report = (file: string) =>
    actionOf<{ stack?: string }>(io, async (options) => {
      const digest = readDigest(file);
      io.stdout.write(renderPreviewReport(digest, options.stack !== undefined ? { stack: options.stack } : {}));
    });
  command.action((file: string, options: { stack?: string }, cmd: Command) => report(file)(options, cmd));
  return command;
}
