import type { Command } from 'commander';
import { listScripts, type Classified } from '../../insights';
import type { Script } from '../../schemas';
import { processIo, type CliIo, type RunIo } from './io';
import { runCommand } from './run';
import { classifiedRow, detectedCommand } from './detected';

/** `zoneguard scripts`: the scripts detected on a zone's pages, with their malicious classification. */
export function scriptsCommand(io: CliIo = processIo()): Command {
  return detectedCommand<Classified<Script>>(
    {
      name: 'scripts',
      description: "list the scripts detected on a zone's pages, with their malicious classification",
      classified: true,
      maliciousWhen: 'js_integrity_score below 50, domain or URL reported',
      duplicates: true,
      load: listScripts,
      columns: [
        { header: 'STATUS' },
        { header: 'HOST' },
        { header: 'SCORE', align: 'right' },
        { header: 'MALICIOUS' },
        { header: 'CATEGORIES' },
        { header: 'URL' },
      ],
      row: (s) => {
        const score = s.js_integrity_score === undefined ? '-' : String(s.js_integrity_score);
        return classifiedRow(s, [score], s.js_integrity_score !== undefined || s.domain_reported_malicious !== undefined);
      },
      examples: [
        'zoneguard scripts --zone 023e105f4ecef8ad9ca31a8372d0c353',
        'zoneguard scripts --zone 023e105f4ecef8ad9ca31a8372d0c353 --malicious --status all --json',
        "zoneguard scripts --zone 023e105f4ecef8ad9ca31a8372d0c353 --hosts 'shop.example.com,*.cdn.example.com' --by-host",
      ],
    },
    io,
  );
}

/** Runs `zoneguard scripts <argv…>` in-process; answers the exit code. */
export function run(argv: readonly string[], io: RunIo): Promise<number> {
  return runCommand(scriptsCommand, argv, io);
}
