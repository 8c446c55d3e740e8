import type { Command } from 'commander';
import { listConnections, type Classified } from '../../insights';
import type { Connection } from '../../schemas';
import { processIo, type CliIo, type RunIo } from './io';
import { runCommand } from './run';
import { classifiedRow, detectedCommand } from './detected';

/** `zoneguard connections`: the connections a zone's pages make, with their malicious classification. */
export function connectionsCommand(io: CliIo = processIo()): Command {
  return detectedCommand<Classified<Connection>>(
    {
      name: 'connections',
      description: "list the connections detected from a zone's pages, with their malicious classification",
      classified: true,
      load: listConnections,
      columns: [{ header: 'STATUS' }, { header: 'HOST' }, { header: 'MALICIOUS' }, { header: 'CATEGORIES' }, { header: 'URL' }],
      row: (c) => classifiedRow(c, [], c.domain_reported_malicious !== undefined || c.url_reported_malicious !== undefined),
      examples: [
        'zoneguard connections --zone 023e105f4ecef8ad9ca31a8372d0c353',
        'zoneguard connections --zone 023e105f4ecef8ad9ca31a8372d0c353 --malicious --json',
      ],
    },
    io,
  );
}

/** Runs `zoneguard connections <argv…>` in-process; answers the exit code. */
export function run(argv: readonly string[], io: RunIo): Promise<number> {
  return runCommand(connectionsCommand, argv, io);
}
