import type { Command } from 'commander';
import { listCookies } from '../../insights';
import type { Cookie } from '../../schemas';
import { processIo, type CliIo, type RunIo } from './io';
import { runCommand } from './run';
import { detectedCommand, yesNo } from './detected';

/** `zoneguard cookies`: the cookies detected on a zone's pages, with their attributes. */
export function cookiesCommand(io: CliIo = processIo()): Command {
  return detectedCommand<Cookie>(
    {
      name: 'cookies',
      description: "list the cookies detected on a zone's pages, with their attributes (cookies have no malicious classification)",
      classified: false,
      load: listCookies,
      columns: [
        { header: 'NAME' },
        { header: 'HOST' },
        { header: 'STATUS' },
        { header: 'TYPE' },
        { header: 'SAME-SITE' },
        { header: 'SECURE' },
        { header: 'HTTP-ONLY' },
        { header: 'MAX-AGE', align: 'right' },
        { header: 'DOMAIN' },
        { header: 'PATH' },
      ],
      row: (c) => [
        c.name,
        c.host,
        c.status ?? '-',
        c.type,
        c.same_site_attribute ?? '-',
        yesNo(c.secure_attribute),
        yesNo(c.http_only_attribute),
        c.max_age_attribute === undefined || c.max_age_attribute === null ? '-' : String(c.max_age_attribute),
        c.domain_attribute ?? '-',
        c.path_attribute ?? '-',
      ],
      examples: [
        'zoneguard cookies --zone 023e105f4ecef8ad9ca31a8372d0c353',
        'zoneguard cookies --zone 023e105f4ecef8ad9ca31a8372d0c353 --status all --json',
      ],
    },
    io,
  );
}

/** Runs `zoneguard cookies <argv…>` in-process; answers the exit code. */
export function run(argv: readonly string[], io: RunIo): Promise<number> {
  return runCommand(cookiesCommand, argv, io);
}
